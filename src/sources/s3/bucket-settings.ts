/**
 * A bucket's settings through S3 calls, for bucket_info and bucket_tag_info: GetBucketVersioning,
 * GetObjectLockConfiguration, GetBucketLifecycleConfiguration (S3_BUCKET_SETTINGS) and
 * GetBucketTagging (BUCKET_TAG_LABELS). Each is optional: a store that does not implement one
 * (NotImplemented, MethodNotAllowed) is remembered and its label left empty, one info line says
 * so; an answer that means "none configured" (NoSuchLifecycleConfiguration,
 * ObjectLockConfigurationNotFoundError, NoSuchTagSet) is `Off` or no tags; a refusal (AccessDenied)
 * leaves that label empty for that bucket, logged once per call. Other failures fail the bucket,
 * as its listing's would.
 */
import {
  GetBucketLifecycleConfigurationCommand,
  GetBucketTaggingCommand,
  GetBucketVersioningCommand,
  GetObjectLockConfigurationCommand,
  type S3Client,
} from '@aws-sdk/client-s3'
import type { Logger } from 'pino'
import type { BucketSettings } from '../../figures/info/index.js'
import { boundedValue } from '../../figures/label-values.js'
import type { RetryPolicy } from '../retry.js'
import { SourceError } from '../types.js'
import { sendClassified } from './client.js'

type SettingsCall =
  | 'GetBucketVersioning'
  | 'GetObjectLockConfiguration'
  | 'GetBucketLifecycleConfiguration'
  | 'GetBucketTagging'

/** Error codes meaning "this bucket has none configured" (AWS's, and Ceph RGW's spellings). */
const NOT_CONFIGURED = new Set([
  'NoSuchLifecycleConfiguration',
  'ObjectLockConfigurationNotFoundError',
  'NoSuchObjectLockConfiguration',
  'NoSuchTagSet',
  'NoSuchTagSetError',
])

export interface SettingsReaderOptions {
  readonly client: S3Client
  readonly logger: Logger
  readonly retry: RetryPolicy
  /** S3_BUCKET_SETTINGS: versioning, object lock, lifecycle. */
  readonly settings: boolean
  /** BUCKET_TAG_LABELS: tag key -> label name; empty reads no tags. */
  readonly tagLabels: ReadonlyMap<string, string>
}

export class BucketSettingsReader {
  readonly #options: SettingsReaderOptions
  readonly #unsupported = new Set<SettingsCall>()
  readonly #deniedLogged = new Set<SettingsCall>()

  constructor(options: SettingsReaderOptions) {
    this.#options = options
  }

  /** Whether any call is asked for (otherwise the record carries no settings). */
  get enabled(): boolean {
    return this.#options.settings || this.#options.tagLabels.size > 0
  }

  async read(bucket: string, signal: AbortSignal): Promise<BucketSettings> {
    const { client } = this.#options
    const out: { -readonly [K in keyof BucketSettings]: BucketSettings[K] } = {}
    if (this.#options.settings) {
      const versioning = await this.#call('GetBucketVersioning', bucket, signal, (abortSignal) =>
        client.send(new GetBucketVersioningCommand({ Bucket: bucket }), { abortSignal }),
      )
      if (versioning !== undefined && versioning !== 'not configured') {
        out.versioning =
          versioning.Status === 'Enabled' || versioning.Status === 'Suspended' ? versioning.Status : 'Off'
      }
      const lock = await this.#call('GetObjectLockConfiguration', bucket, signal, (abortSignal) =>
        client.send(new GetObjectLockConfigurationCommand({ Bucket: bucket }), { abortSignal }),
      )
      if (lock !== undefined) {
        out.objectLock =
          lock !== 'not configured' && lock.ObjectLockConfiguration?.ObjectLockEnabled === 'Enabled'
            ? 'Enabled'
            : 'Off'
      }
      const lifecycle = await this.#call('GetBucketLifecycleConfiguration', bucket, signal, (abortSignal) =>
        client.send(new GetBucketLifecycleConfigurationCommand({ Bucket: bucket }), { abortSignal }),
      )
      if (lifecycle !== undefined) {
        const rules = lifecycle === 'not configured' ? [] : (lifecycle.Rules ?? [])
        out.lifecycle =
          rules.length === 0
            ? 'Off'
            : rules.some((rule) => rule.Status === 'Enabled')
              ? 'Enabled'
              : 'Disabled'
      }
    }
    if (this.#options.tagLabels.size > 0) {
      const tagging = await this.#call('GetBucketTagging', bucket, signal, (abortSignal) =>
        client.send(new GetBucketTaggingCommand({ Bucket: bucket }), { abortSignal }),
      )
      if (tagging !== undefined) {
        const tags: Record<string, string> = {}
        if (tagging !== 'not configured') {
          for (const { Key, Value } of tagging.TagSet ?? []) {
            const label = Key === undefined ? undefined : this.#options.tagLabels.get(Key)
            if (label !== undefined) tags[label] = boundedValue(Value ?? '')
          }
        }
        out.tags = tags
      }
    }
    return out
  }

  /** The answer, 'not configured', or undefined when the store lacks the call or refused it. */
  async #call<T>(
    call: SettingsCall,
    bucket: string,
    signal: AbortSignal,
    send: (abortSignal: AbortSignal) => Promise<T>,
  ): Promise<T | 'not configured' | undefined> {
    if (this.#unsupported.has(call)) return undefined
    try {
      return await sendClassified(`${call} ${bucket}`, signal, this.#options.retry, send)
    } catch (error) {
      if (!(error instanceof SourceError)) throw error
      const code = (error.cause as { name?: string } | undefined)?.name ?? ''
      if (NOT_CONFIGURED.has(code)) return 'not configured'
      if (error.kind === 'unsupported') {
        this.#unsupported.add(call)
        this.#options.logger.info(
          { operation: call, bucket },
          `store does not implement ${call}: its label is left empty`,
        )
        return undefined
      }
      if (error.kind === 'denied') {
        if (!this.#deniedLogged.has(call)) {
          this.#deniedLogged.add(call)
          this.#options.logger.warn({ operation: call, bucket }, `${call} refused: its label is left empty`)
        }
        return undefined
      }
      throw error
    }
  }
}
