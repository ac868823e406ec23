import { benchBuild } from './support/build.js'
import { type BenchRow, report } from './support/report.js'
import { listingBucketName, startListingProcess } from './support/s3-listing.js'
import { bareClient, bareListing, listingScanner, timeScan } from './support/s3-scan.js'

/**
 * Issue 15, target 1: one bucket listed in key ranges at once, the built scanner as deployed
 * (S3_LIST_RANGES at its default, SCAN_CONCURRENCY=16: the budget one huge bucket may use),
 * against a generated endpoint in a child process (support/s3-listing.ts: Prefix, Delimiter,
 * StartAfter as S3 answers them):
 * - 1,000,000 objects, every response 20 ms late (a remote store's time to first byte), nested
 *   keys (tenant/day/object) and flat keys (key-000000123): the scan against the bare sequential
 *   ListObjectsV2 loop with the same SDK over the same bucket, alternated in this run; at least
 *   4x faster nested, 2x flat;
 * - the same without latency: entries per second, beside the figures
 *   tropnikovvl/s3-bucket-exporter publishes for its key-range listing on a local mock (~41,000/s
 *   nested, ~3,000/s flat); reported, not a target (another machine, another mock).
 * `--quick`: 200,000 objects, for a look while working.
 */

const QUICK = process.argv.includes('--quick')
const OBJECTS = QUICK ? 200_000 : 1_000_000
const LATENCY_MS = 20
const CONCURRENCY = 16
const SHAPES = [
  { shape: 'nested', target: 4, peerPerSecond: 41_000 },
  { shape: 'flat', target: 2, peerPerSecond: 3_000 },
] as const

type ScannerModule = typeof import('../src/scanning/scanner.js')
type S3SourceModule = typeof import('../src/sources/s3/source.js')

const build = benchBuild()
const { UsageScanner } = await build.load<ScannerModule>('scanning/scanner.js')
const { createS3Source } = await build.load<S3SourceModule>('sources/s3/source.js')

const bucketOf = (shape: string, latencyMs: number) =>
  listingBucketName(OBJECTS, latencyMs, `${shape}${latencyMs > 0 ? 'slow' : 'fast'}`)
const buckets = SHAPES.flatMap(({ shape }) => [bucketOf(shape, LATENCY_MS), bucketOf(shape, 0)])
const store = await startListingProcess(buckets)

function scannerOf(bucket: string) {
  return listingScanner({ UsageScanner, createS3Source }, store.endpoint, [bucket], CONCURRENCY)
}

const bare = bareClient(store.endpoint)

/** The baseline: ListObjectsV2 page after page, counting keys, nothing else. */
async function timeBareLoop(bucket: string): Promise<number> {
  const { ms, objects } = await bareListing(bare, bucket)
  if (objects !== OBJECTS) throw new Error(`bare loop: ${objects} objects`)
  return ms
}

const rows: BenchRow[] = []
const closing: ReturnType<typeof scannerOf>[] = []
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`
try {
  for (const [round, { shape, target, peerPerSecond }] of SHAPES.entries()) {
    const slow = bucketOf(shape, LATENCY_MS)
    const scanner = scannerOf(slow)
    closing.push(scanner)
    // Alternated: which goes first changes with the shape.
    let loopMs: number
    let scanMs: number
    if (round % 2 === 0) {
      loopMs = await timeBareLoop(slow)
      scanMs = await timeScan(scanner, OBJECTS)
    } else {
      scanMs = await timeScan(scanner, OBJECTS)
      loopMs = await timeBareLoop(slow)
    }
    process.stdout.write(
      `${shape}, ${LATENCY_MS} ms a page: bare loop ${seconds(loopMs)}, ranged scan ${seconds(scanMs)}\n`,
    )
    rows.push({
      name: `s3 one bucket in key ranges, ${OBJECTS.toLocaleString('en')} ${shape} keys, ${LATENCY_MS} ms per page`,
      figure: `${seconds(scanMs)} (SCAN_CONCURRENCY=${CONCURRENCY})`,
      baseline: `bare ListObjectsV2 loop ${seconds(loopMs)}`,
      ratio: loopMs / scanMs,
      target: `>= ${target}x faster`,
      pass: loopMs / scanMs >= target,
    })
    const fast = bucketOf(shape, 0)
    const fastScanner = scannerOf(fast)
    closing.push(fastScanner)
    const fastMs = await timeScan(fastScanner, OBJECTS)
    const perSecond = OBJECTS / (fastMs / 1000)
    process.stdout.write(
      `${shape}, no latency: ranged scan ${seconds(fastMs)}, ${perSecond.toFixed(0)} entries/s\n`,
    )
    rows.push({
      name: `s3 one bucket in key ranges, ${shape} keys, no latency`,
      figure: `${Math.round(perSecond).toLocaleString('en')} entries/s`,
      baseline: `tropnikovvl/s3-bucket-exporter ~${peerPerSecond.toLocaleString('en')}/s (published, local mock)`,
      ratio: perSecond / peerPerSecond,
      target: 'reported',
      pass: true,
    })
  }
  report(rows)
} finally {
  for (const scanner of closing) await scanner.close()
  bare.destroy()
  await store.close()
  build.remove()
}
