import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { CreateBucketCommand, PutObjectCommand, S3Client, type StorageClass } from '@aws-sdk/client-s3'

const CHILD = fileURLToPath(new URL('./s3rver-child.ts', import.meta.url))
const TSX = import.meta.resolve('tsx')

export interface S3rverProcess {
  /** http://127.0.0.1:PORT */
  readonly endpoint: string
  readonly port: number
  /** A client for setting up fixtures (path-style, any credentials: s3rver checks none). */
  readonly client: S3Client
  /** Environment that points the exporter's s3 source at this server. */
  readonly exporterEnv: Readonly<Record<string, string>>
  /** Stops the server (by pid) and removes its data folder. */
  stop(): Promise<void>
}

/** Credentials s3rver accepts (it checks none); the exporter is given them explicitly. */
export const S3RVER_KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const

export interface S3rverOptions {
  /** Called with each S3 event document s3rver emits (`{"Records": [...]}`), in order. */
  readonly onEvent?: (event: unknown) => void
}

/**
 * Starts s3rver on a free loopback port in a child process (see s3rver-child.ts for why a child),
 * with its data in a fresh temporary folder.
 */
export async function startS3rver(options: S3rverOptions = {}): Promise<S3rverProcess> {
  const directory = await mkdtemp(join(tmpdir(), 'objstore-s3rver-'))
  const events = options.onEvent ? ['--events'] : []
  const child = spawn(
    process.execPath,
    ['--openssl-legacy-provider', '--import', TSX, CHILD, directory, ...events],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  )
  let port: number
  try {
    port = await readPort(child, options.onEvent)
  } catch (error) {
    child.kill('SIGKILL')
    await rm(directory, { recursive: true, force: true })
    throw error
  }
  const endpoint = `http://127.0.0.1:${port}`
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: S3RVER_KEYS,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  })
  return {
    endpoint,
    port,
    client,
    exporterEnv: {
      BUCKETS_SOURCE: 's3',
      S3_ENDPOINT: endpoint,
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: S3RVER_KEYS.accessKeyId,
      S3_SECRET_ACCESS_KEY: S3RVER_KEYS.secretAccessKey,
    },
    async stop() {
      client.destroy()
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit')
        child.kill('SIGTERM')
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000)
        await exited
        clearTimeout(timer)
      }
      await rm(directory, { recursive: true, force: true })
    },
  }
}

/** The port the child prints; its later lines (events) go to `onEvent`, read until it exits. */
async function readPort(child: ChildProcess, onEvent?: (event: unknown) => void): Promise<number> {
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
  return new Promise<number>((resolve, reject) => {
    let port: number | undefined
    lines.on('line', (line) => {
      const parsed = JSON.parse(line) as { port?: number; event?: unknown }
      if (port === undefined && typeof parsed.port === 'number') {
        port = parsed.port
        clearTimeout(timer)
        resolve(port)
        if (!onEvent) lines.close()
      } else if (parsed.event !== undefined) onEvent?.(parsed.event)
    })
    lines.on('close', () => {
      clearTimeout(timer)
      if (port === undefined) reject(new Error(`s3rver exited before listening (code ${child.exitCode})`))
    })
  })
}

export interface ObjectSpec {
  readonly key: string
  readonly size: number
  readonly storageClass?: StorageClass
}

/** Creates `bucket` and writes `objects` into it. */
export async function fillBucket(
  client: S3Client,
  bucket: string,
  objects: readonly ObjectSpec[],
): Promise<void> {
  await client.send(new CreateBucketCommand({ Bucket: bucket }))
  await putObjects(client, bucket, objects)
}

/** Writes `objects` (zero-filled bodies of the given sizes), 16 at a time. */
export async function putObjects(
  client: S3Client,
  bucket: string,
  objects: readonly ObjectSpec[],
): Promise<void> {
  let next = 0
  const lane = async () => {
    while (next < objects.length) {
      const { key, size, storageClass } = objects[next++] as ObjectSpec
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: Buffer.alloc(size),
          ...(storageClass ? { StorageClass: storageClass } : {}),
        }),
      )
    }
  }
  await Promise.all(Array.from({ length: 16 }, lane))
}
