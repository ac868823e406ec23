import type { Logger } from 'pino'
import { EventCounters } from './counters.js'
import { type ReadRecords, readRecords } from './s3-records.js'
import { getFromSns } from './sns-fetch.js'
import { isSnsUrl, looksLikeSns, readSnsMessage, type SnsMessage } from './sns-message.js'
import { SnsVerifier } from './sns-verifier.js'
import type { ChangeListener, RefusalReason } from './types.js'

/** The most of SNS's answer to a confirmation read (an XML document of a few hundred bytes). */
const MAX_CONFIRMATION_ANSWER_BYTES = 64 * 1024

/** What the endpoint answers a delivery: an HTTP status and a one-line message. */
export interface Answer {
  readonly status: number
  readonly message: string
}

/** The status each refusal answers: 4xx the sender cannot fix by retrying, 502 when SNS was unreachable. */
const STATUS: Record<RefusalReason, number> = {
  unauthorized: 401,
  too_large: 413,
  malformed: 400,
  too_many_records: 413,
  invalid_record: 400,
  not_a_change: 200,
  not_scanned: 200,
  sns_topic: 403,
  sns_signature: 403,
  sns_certificate: 502,
  sns_confirmation: 502,
}

const MESSAGES: Record<RefusalReason, string> = {
  unauthorized: 'a token is required (Authorization: Bearer, or the token query parameter)',
  too_large: 'the body is too large',
  malformed: 'not an S3 event notification document nor an SNS message',
  too_many_records: 'too many records in one delivery',
  invalid_record: 'a record lacks its bucket name, object key or event name',
  not_a_change: 'not an event that changes a listing',
  not_scanned: 'the bucket is not scanned',
  sns_topic: 'the SNS topic is not one of EVENTS_SNS_TOPIC_ARNS',
  sns_signature: 'the SNS message signature does not verify',
  sns_certificate: 'the SNS signing certificate could not be had',
  sns_confirmation: 'the SNS subscription could not be confirmed',
}

export interface EventReceiverOptions {
  /** Told of every change read (bucket, key); never blocks the delivery. */
  readonly listener: ChangeListener
  /** EVENTS_SNS_TOPIC_ARNS: the topics whose SNS messages are accepted. */
  readonly topicArns: readonly string[]
  /** Whether the scanner measures a bucket (BUCKETS, BUCKETS_INCLUDE/EXCLUDE, SHARD). */
  readonly scanned?: (bucket: string) => boolean
  /**
   * Whether the bucket is one the exporter measures now (in its current figures): its records are
   * counted per bucket too. Any other name is a sender's, and counted only in the totals.
   */
  readonly measured?: (bucket: string) => boolean
  readonly logger: Logger
}

/**
 * Reads deliveries to `POST /events` (the route checks the token and bounds the body first):
 * S3 event notification documents as MinIO and Ceph RGW post them, and SNS messages (confirmed
 * for a configured topic, verified by signature) wrapping the documents AWS S3 publishes. Every
 * change read is handed to the listener; nothing here changes a figure. Object keys are logged at
 * debug only.
 */
export class EventReceiver {
  readonly counters = new EventCounters()
  readonly #options: EventReceiverOptions
  readonly #topics: ReadonlySet<string>
  readonly #verifier = new SnsVerifier()

  constructor(options: EventReceiverOptions) {
    this.#options = options
    this.#topics = new Set(options.topicArns)
  }

  /** Counts a delivery refused before its body was read, and says what to answer. */
  refuse(reason: RefusalReason): Answer {
    this.counters.refused(reason)
    return { status: STATUS[reason], message: MESSAGES[reason] }
  }

  /** Reads one delivery's body (already bounded); never throws. */
  async receive(body: string): Promise<Answer> {
    let document: unknown
    try {
      document = JSON.parse(body)
    } catch {
      return this.refuse('malformed')
    }
    if (looksLikeSns(document)) return this.#receiveSns(document)
    return this.#apply(readRecords(document))
  }

  async #receiveSns(document: unknown): Promise<Answer> {
    const message = readSnsMessage(document)
    if (!message) return this.refuse('malformed')
    const { logger } = this.#options
    // Before the signature: a message of another topic costs no certificate fetch.
    if (!this.#topics.has(message.TopicArn)) {
      logger.warn(
        { topicArn: message.TopicArn.slice(0, 300) },
        'SNS message from a topic not in EVENTS_SNS_TOPIC_ARNS refused',
      )
      return this.refuse('sns_topic')
    }
    const verdict = await this.#verifier.verify(message)
    if (verdict !== 'verified') {
      logger.warn({ topicArn: message.TopicArn, reason: verdict }, 'SNS message refused')
      return this.refuse(verdict)
    }
    if (message.Type === 'SubscriptionConfirmation') return this.#confirm(message)
    if (message.Type === 'UnsubscribeConfirmation') {
      logger.info({ topicArn: message.TopicArn }, 'SNS subscription ended')
      return { status: 200, message: 'unsubscribed' }
    }
    let inner: unknown
    try {
      inner = JSON.parse(message.Message)
    } catch {
      return this.refuse('malformed')
    }
    return this.#apply(readRecords(inner))
  }

  async #confirm(message: SnsMessage): Promise<Answer> {
    const { logger } = this.#options
    const url = message.SubscribeURL ?? ''
    if (!isSnsUrl(url)) return this.refuse('sns_confirmation')
    try {
      const answer = await getFromSns(url, MAX_CONFIRMATION_ANSWER_BYTES)
      if (answer.status !== 200) throw new Error(`SNS answered ${answer.status}`)
    } catch (error) {
      logger.warn(
        { topicArn: message.TopicArn, error: error instanceof Error ? error.message : String(error) },
        'SNS subscription confirmation failed',
      )
      return this.refuse('sns_confirmation')
    }
    logger.info({ topicArn: message.TopicArn }, 'SNS subscription confirmed')
    return { status: 200, message: 'subscription confirmed' }
  }

  #apply(read: ReadRecords | 'malformed' | 'too_many_records'): Answer {
    if (typeof read === 'string') return this.refuse(read)
    const { listener, scanned, measured, logger } = this.#options
    this.counters.received(read.received)
    for (const [reason, count] of read.refused) this.counters.refused(reason, count)
    const ofMeasured = (bucket: string) => (scanned?.(bucket) ?? true) && (measured?.(bucket) ?? false)
    for (const { bucket, reason } of read.refusedIn)
      if (ofMeasured(bucket)) this.counters.inBucket(bucket, reason)
    let applied = 0
    for (const change of read.changes) {
      if (scanned && !scanned(change.bucket)) {
        this.counters.refused('not_scanned')
        continue
      }
      logger.debug({ bucket: change.bucket, key: change.key, eventName: change.eventName }, 'change event')
      try {
        listener.changed(change.bucket, change.key)
      } catch (error) {
        logger.error({ err: error }, 'change listener failed')
        continue
      }
      this.counters.applied()
      if (ofMeasured(change.bucket)) this.counters.inBucket(change.bucket, 'applied')
      applied += 1
    }
    // Counted above, record by record: a document of nothing but broken records is a sender's bug.
    if (read.refused.has('invalid_record') && applied === 0)
      return { status: STATUS.invalid_record, message: MESSAGES.invalid_record }
    return { status: 200, message: `${applied} of ${read.received} applied` }
  }
}
