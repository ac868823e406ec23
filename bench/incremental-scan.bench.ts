import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { benchBuild } from './support/build.js'
import { type BenchRow, report } from './support/report.js'
import { listingBucketName, overwriteObjects, startListingProcess } from './support/s3-listing.js'
import { timedStateLoad } from './support/state-load.js'

/**
 * Issue 25: incremental scans of one big bucket (per-range subtotals), the built scanner against the
 * generated endpoint (support/s3-listing.ts) at 20 ms a page, against the same run's full listing
 * (SCAN_FULL_EVERY=1) of the same bucket:
 * - 100 keys overwritten between rounds and marked (as change events mark them), SCAN_FULL_EVERY
 *   large so the marks' share is seen alone: the round after lists <= 2% of a full pass's LIST
 *   requests, and its figures equal the full listing's; once with the 100 keys side by side (as
 *   writes under one prefix land), once spread over the bucket (reported);
 * - rotation only (no mark), SCAN_FULL_EVERY=16: a round costs about 1/16 of a full pass;
 * - the state file of that bucket (about 1,000 ranges): its size and a fresh process's load time.
 * `--quick`: 200,000 objects.
 */

const QUICK = process.argv.includes('--quick')
const OBJECTS = QUICK ? 200_000 : 1_000_000
const LATENCY_MS = 20
const CONCURRENCY = 16
const ROTATION = 16
/** Ranges of about 1,000 keys: a dirty range is one LIST request. */
const RANGE_MAX = 2_000

type ScannerModule = typeof import('../src/scanning/scanner.js')
type S3SourceModule = typeof import('../src/sources/s3/source.js')
type StateFileModule = typeof import('../src/snapshot/state-file.js')
type Snapshot = import('../src/snapshot/snapshot.js').UsageSnapshot

const build = benchBuild()
const { UsageScanner } = await build.load<ScannerModule>('scanning/scanner.js')
const { createS3Source } = await build.load<S3SourceModule>('sources/s3/source.js')
const { saveState } = await build.load<StateFileModule>('snapshot/state-file.js')

const bucket = listingBucketName(OBJECTS, LATENCY_MS, 'incremental')
const store = await startListingProcess([bucket])
const silent = pino({ level: 'silent' })
const sourceOptions = {
  endpoint: store.endpoint,
  region: 'us-east-1',
  forcePathStyle: true,
  accessKeyId: 'bench',
  secretAccessKey: 'bench-secret',
  scanVersions: false,
  logger: silent,
}

function scanner(fullEvery: number) {
  return new UsageScanner({
    source: createS3Source(sourceOptions),
    filter: () => true,
    fixedBuckets: [bucket],
    intervalMs: 3_600_000,
    concurrency: CONCURRENCY,
    timeoutMs: 3_600_000,
    logger: silent,
    subtotals: { fullEvery, minObjects: 1_000, maxEntries: RANGE_MAX },
  })
}
type Scanner = ReturnType<typeof scanner>

async function round(of: Scanner): Promise<{ snapshot: Snapshot; requests: number; ms: number }> {
  const started = performance.now()
  const snapshot = await of.scanNow()
  const ms = performance.now() - started
  const record = snapshot.buckets[0]
  if (!record?.scanSuccess) throw new Error(`${bucket} not measured`)
  return { snapshot, requests: of.lastScanListingPages?.get('ListObjectsV2') ?? 0, ms }
}

const usageOf = (snapshot: Snapshot) => JSON.stringify(snapshot.buckets[0]?.usage)
const rows: BenchRow[] = []
const closing: Scanner[] = []
const percent = (share: number) => `${(100 * share).toFixed(2)}%`
const folder = await mkdtemp(join(tmpdir(), 'objstore-incremental-'))
try {
  const full = scanner(1)
  const marked = scanner(1_000_000)
  const rotated = scanner(ROTATION)
  closing.push(full, marked, rotated)
  const fullPass = await round(full)
  process.stdout.write(
    `full pass: ${fullPass.requests} LIST requests, ${(fullPass.ms / 1000).toFixed(1)} s\n`,
  )
  for (const incremental of [marked, rotated]) {
    await round(incremental) // listed whole: the bucket's size is not known yet
    const first = await round(incremental) // the first pass in ranges
    process.stdout.write(`first ranged pass: ${first.requests} LIST requests (probes included)\n`)
  }

  const changes = [
    { shape: 'side by side', first: 500_000, step: 1, target: 0.02 },
    { shape: 'spread over the bucket', first: 1_234, step: Math.floor(OBJECTS / 100) - 7, target: undefined },
  ]
  for (const [index, { shape, first, step, target }] of changes.entries()) {
    await overwriteObjects(store.endpoint, bucket, { first, count: 100, step, size: 4_321 + index })
    for (let key = 0; key < 100; key++)
      marked.keyChanges.markChanged(bucket, `key-${String(first + key * step).padStart(9, '0')}`)
    const after = await round(marked)
    const reference = await round(full)
    const exact = usageOf(after.snapshot) === usageOf(reference.snapshot)
    const share = after.requests / reference.requests
    process.stdout.write(`100 keys changed ${shape}: ${after.requests} LIST requests, exact: ${exact}\n`)
    rows.push({
      name: `incremental scan, ${OBJECTS.toLocaleString('en')} keys, 100 keys changed ${shape} and marked`,
      figure: `${after.requests} LIST requests, figures ${exact ? 'exact' : 'NOT exact'}`,
      baseline: `full pass ${reference.requests} LIST requests`,
      ratio: share,
      target: target === undefined ? 'reported (exact)' : `<= ${percent(target)} of a full pass, exact`,
      pass: exact && (target === undefined || share <= target),
    })
  }

  let rotationRequests = 0
  for (let turn = 0; turn < ROTATION; turn++) rotationRequests += (await round(rotated)).requests
  const perRound = rotationRequests / ROTATION / fullPass.requests
  const rotatedNow = await round(rotated)
  const rotatedExact = usageOf(rotatedNow.snapshot) === usageOf((await round(full)).snapshot)
  rows.push({
    name: `incremental scan, rotation only (SCAN_FULL_EVERY=${ROTATION}), no mark`,
    figure: `${percent(perRound)} of a full pass a round (mean of ${ROTATION}); exact after: ${rotatedExact}`,
    baseline: `1/${ROTATION} = ${percent(1 / ROTATION)}`,
    ratio: perRound * ROTATION,
    target: `about 1/${ROTATION} (<= 2/${ROTATION}), exact`,
    pass: rotatedExact && perRound <= 2 / ROTATION,
  })

  const file = join(folder, 'state.json')
  await saveState(file, rotatedNow.snapshot)
  const bytes = (await stat(file)).size
  const ranges = rotatedNow.snapshot.buckets[0]?.ranges?.ranges ?? 0
  const load = await timedStateLoad('load', build.dir, file, rotatedNow.snapshot.sourceId)
  rows.push({
    name: `state file, one bucket of ${ranges.toLocaleString('en')} ranges`,
    figure: `${(bytes / 2 ** 20).toFixed(1)} MiB, loaded in ${load.ms.toFixed(0)} ms`,
    baseline: `${(bytes / Math.max(1, ranges)).toFixed(0)} bytes a range`,
    ratio: null,
    target: 'reported',
    pass: load.buckets === 1,
  })
  report(rows)
} finally {
  for (const each of closing) await each.close()
  await store.close()
  await rm(folder, { recursive: true, force: true })
  build.remove()
}
