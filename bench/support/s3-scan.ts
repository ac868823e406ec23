import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3'
import pino from 'pino'

/**
 * What the s3 benches share: the built scanner over a generated listing endpoint
 * (s3-listing.ts), as deployed, and the baseline it is measured against, a bare ListObjectsV2
 * loop with the same SDK.
 */

type ScannerModule = typeof import('../../src/scanning/scanner.js')
type S3SourceModule = typeof import('../../src/sources/s3/source.js')

const BENCH_CREDENTIALS = { accessKeyId: 'bench', secretAccessKey: 'bench-secret' } as const

/** A scanner of `buckets` on `endpoint`, SCAN_CONCURRENCY `concurrency`, every other setting its default. */
export function listingScanner(
  modules: { UsageScanner: ScannerModule['UsageScanner']; createS3Source: S3SourceModule['createS3Source'] },
  endpoint: string,
  buckets: readonly string[],
  concurrency: number,
) {
  const silent = pino({ level: 'silent' })
  return new modules.UsageScanner({
    source: modules.createS3Source({
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      ...BENCH_CREDENTIALS,
      scanVersions: false,
      logger: silent,
    }),
    filter: () => true,
    fixedBuckets: buckets,
    intervalMs: 3_600_000,
    concurrency,
    timeoutMs: 600_000,
    logger: silent,
  })
}

/** A scan's wall time, after checking it counted `objectsPerBucket` in every bucket. */
export async function timeScan(
  scanner: ReturnType<typeof listingScanner>,
  objectsPerBucket: number,
): Promise<number> {
  const started = performance.now()
  const snapshot = await scanner.scanNow()
  const elapsed = performance.now() - started
  for (const record of snapshot.buckets) {
    if (!record.scanSuccess || record.usage?.objects !== objectsPerBucket) {
      throw new Error(`${record.name}: ${record.usage?.objects} objects, expected ${objectsPerBucket}`)
    }
  }
  return elapsed
}

/** The baseline's client: the same SDK, no middleware of ours, on the generated endpoint. */
export function bareClient(endpoint: string): S3Client {
  return new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: BENCH_CREDENTIALS })
}

/** ListObjectsV2 page after page, counting keys and summing sizes, nothing else; its wall time. */
export async function bareListing(
  client: S3Client,
  bucket: string,
): Promise<{ ms: number; objects: number; bytes: number }> {
  const started = performance.now()
  let token: string | undefined
  let objects = 0
  let bytes = 0
  for (let page = 0; page < 100_000; page++) {
    const answer = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }))
    for (const object of answer.Contents ?? []) {
      objects++
      bytes += object.Size ?? 0
    }
    token = answer.IsTruncated ? answer.NextContinuationToken : undefined
    if (!token) break
  }
  return { ms: performance.now() - started, objects, bytes }
}
