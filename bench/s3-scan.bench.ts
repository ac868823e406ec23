import { benchBuild } from './support/build.js'
import { type BenchRow, median, report } from './support/report.js'
import { listingBucketName, objectSize, startListingProcess } from './support/s3-listing.js'
import { bareClient, bareListing, listingScanner, timeScan } from './support/s3-scan.js'

/**
 * Target 4, the s3 source against a local endpoint that generates ListObjectsV2 pages (in a child
 * process, as a store is another process), the built scanner as deployed:
 * - one bucket of 100,000 objects: the scanner (every page folded, plus its ListMultipartUploads
 *   call) against a bare paginated ListObjectsV2 loop with the same SDK over the same bucket,
 *   alternated, medians of seven; at most 10% slower;
 * - 12 buckets of 4 pages whose every response takes 50 ms (a page of 1,000 keys takes 90-120 ms
 *   on s3rver, about 100 ms on AWS): SCAN_CONCURRENCY=12 against one bucket at a time; at least
 *   3x faster;
 * - one bucket of 1,000,000 objects: resident set growth while the scanner folds it, sampled
 *   every 20 ms against the RSS before (after a full GC); under 64 MB.
 */

const SINGLE_OBJECTS = 100_000
const RUNS = 7
const MANY = 12
const MANY_OBJECTS = 4_000
const LATENCY_MS = 50
const MILLION = 1_000_000

type ScannerModule = typeof import('../src/scanning/scanner.js')
type S3SourceModule = typeof import('../src/sources/s3/source.js')

const build = benchBuild()
const { UsageScanner } = await build.load<ScannerModule>('scanning/scanner.js')
const { createS3Source } = await build.load<S3SourceModule>('sources/s3/source.js')

const single = listingBucketName(SINGLE_OBJECTS, 0, 'single')
const many = Array.from({ length: MANY }, (_, index) =>
  listingBucketName(MANY_OBJECTS, LATENCY_MS, `c${index}`),
)
const million = listingBucketName(MILLION, 0, 'million')
const store = await startListingProcess([single, ...many, million])

function scannerOf(buckets: readonly string[], concurrency: number) {
  return listingScanner({ UsageScanner, createS3Source }, store.endpoint, buckets, concurrency)
}

const bare = bareClient(store.endpoint)

/** The baseline: ListObjectsV2 page after page, summing sizes, nothing else. */
async function timeBareLoop(bucket: string): Promise<number> {
  const { ms, objects, bytes } = await bareListing(bare, bucket)
  let expected = 0
  for (let index = 0; index < SINGLE_OBJECTS; index++) expected += objectSize(index)
  if (objects !== SINGLE_OBJECTS || bytes !== expected) throw new Error(`bare loop: ${objects} objects`)
  return ms
}

const rows: BenchRow[] = []
const closing: ReturnType<typeof scannerOf>[] = []
try {
  // A million objects folded: memory stays flat. First, while this process is fresh: a heap
  // grown by the other measurements would hide growth.
  const millionScanner = scannerOf([million], 1)
  closing.push(millionScanner)
  globalThis.gc?.()
  const before = process.memoryUsage().rss
  let peak = before
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 20)
  const millionMs = await timeScan(millionScanner, MILLION)
  clearInterval(sampler)
  peak = Math.max(peak, process.memoryUsage().rss)
  const growthMb = (peak - before) / 2 ** 20
  // One bucket, scanner against the bare loop.
  const singleScanner = scannerOf([single], 1)
  closing.push(singleScanner)
  await timeBareLoop(single)
  await timeScan(singleScanner, SINGLE_OBJECTS)
  const scans: number[] = []
  const loops: number[] = []
  for (let run = 0; run < RUNS; run++) {
    loops.push(await timeBareLoop(single))
    scans.push(await timeScan(singleScanner, SINGLE_OBJECTS))
  }
  const scanMs = median(scans)
  const loopMs = median(loops)
  process.stdout.write(
    `100,000 objects: bare loop ${loops.map((ms) => ms.toFixed(0)).join(', ')} ms; scan ${scans.map((ms) => ms.toFixed(0)).join(', ')} ms\n`,
  )
  rows.push({
    name: `s3 scan, 1 bucket of ${SINGLE_OBJECTS.toLocaleString('en')} objects`,
    figure: `${scanMs.toFixed(0)} ms`,
    baseline: `bare ListObjectsV2 loop ${loopMs.toFixed(0)} ms`,
    ratio: scanMs / loopMs,
    target: '<= 1.1x',
    pass: scanMs / loopMs <= 1.1,
  })

  // Many buckets at once against one after another, same store, same run.
  const concurrent = scannerOf(many, MANY)
  const sequential = scannerOf(many, 1)
  closing.push(concurrent, sequential)
  await timeScan(concurrent, MANY_OBJECTS)
  const together: number[] = []
  const oneByOne: number[] = []
  for (let run = 0; run < 2; run++) {
    oneByOne.push(await timeScan(sequential, MANY_OBJECTS))
    together.push(await timeScan(concurrent, MANY_OBJECTS))
  }
  const togetherMs = median(together)
  const oneByOneMs = median(oneByOne)
  rows.push({
    name: `s3 scan, ${MANY} buckets x ${MANY_OBJECTS / 1000} pages, ${LATENCY_MS} ms per response`,
    figure: `${togetherMs.toFixed(0)} ms (SCAN_CONCURRENCY=${MANY})`,
    baseline: `one at a time ${oneByOneMs.toFixed(0)} ms`,
    ratio: oneByOneMs / togetherMs,
    target: '>= 3x faster',
    pass: oneByOneMs / togetherMs >= 3,
  })

  rows.push({
    name: 's3 scan, RSS growth folding 1,000,000 objects',
    figure: `+${growthMb.toFixed(1)} MB (${(millionMs / 1000).toFixed(1)} s)`,
    baseline: `RSS before ${(before / 2 ** 20).toFixed(0)} MB`,
    ratio: peak / before,
    target: '< +64 MB',
    pass: growthMb < 64,
  })
  report(rows)
} finally {
  for (const scanner of closing) await scanner.close()
  bare.destroy()
  await store.close()
  build.remove()
}
