import { benchBuild } from './support/build.js'
import { type BenchRow, median, report } from './support/report.js'

/**
 * Issue 24: the rate of the fold itself, no listing around it: 1,000,000 current objects (sizes
 * over every range, times over every age band, four storage classes) through the fold every
 * source uses (src/record/bucket-usage.ts, and the figures of src/figures/ it runs), and 1,000,000
 * entries of a versioned listing (three versions per key, one delete marker in ten keys) through
 * the version listing's fold. The figures moving into folders must not slow it: the baseline is
 * a loop that only sums the sizes, the floor any fold pays. Run with `npm run bench -- fold`.
 */

type FoldModule = typeof import('../src/record/bucket-usage.js')
type VersionModule = typeof import('../src/record/version-listing.js')

const OBJECTS = 1_000_000
const PAGE = 1000
const REPEATS = 5
const NOW = Date.UTC(2026, 0, 1)
const DAY = 86_400_000
/** A fold within this many times the bare sum: the per-object work stays a few steps. */
const TARGET_RATIO = 40
const CLASSES = ['STANDARD', 'STANDARD_IA', 'GLACIER', '']

const sizeOf = (index: number) => ((index * 7919) % (1 << 30)) >> (index % 20)
const timeOf = (index: number) => NOW - ((index * 104_729) % (800 * DAY))

/**
 * CPU time per object (user and system, in ns), the median of REPEATS runs: on a machine shared
 * with other work, the time this thread ran, not the time it waited for a core.
 */
function timed(run: () => void): number {
  const samples: number[] = []
  for (let repeat = 0; repeat < REPEATS; repeat++) {
    const started = process.cpuUsage()
    run()
    const { user, system } = process.cpuUsage(started)
    samples.push(((user + system) * 1e3) / OBJECTS)
  }
  return median(samples)
}

const build = benchBuild()
try {
  const { UsageAccumulator } = await build.load<FoldModule>('record/bucket-usage.js')
  const { VersionListingFold } = await build.load<VersionModule>('record/version-listing.js')
  let sink = 0
  const bare = timed(() => {
    let bytes = 0
    for (let index = 0; index < OBJECTS; index++) bytes += sizeOf(index)
    sink += bytes
  })
  const current = timed(() => {
    const fold = new UsageAccumulator({ storageClasses: true, nowMs: NOW })
    const object = { size: 0, modifiedMs: 0, storageClass: '' as string | undefined }
    for (let index = 0; index < OBJECTS; index++) {
      object.size = sizeOf(index)
      object.modifiedMs = timeOf(index)
      object.storageClass = CLASSES[index % 4]
      fold.add(object)
    }
    sink += fold.finish().bytes
  })
  // Pages of a versioned listing, made once: the fold is timed, not the making of entries.
  type Entry = Parameters<InstanceType<typeof VersionListingFold>['addPage']>[0][number]
  const pages: { versions: Entry[]; markers: Entry[]; next: string | undefined }[] = []
  for (let start = 0; start < OBJECTS; start += PAGE) {
    const versions: Entry[] = []
    const markers: Entry[] = []
    for (let index = start; index < start + PAGE; index++) {
      const key = `logs/${String(Math.floor(index / 3)).padStart(7, '0')}`
      const nth = index % 3
      const entry = {
        key,
        versionId: `v${index}`,
        isLatest: nth === 0,
        modifiedMs: timeOf(index) - nth * DAY,
      }
      if (nth === 0 && Math.floor(index / 3) % 10 === 0) markers.push(entry)
      else versions.push({ ...entry, size: sizeOf(index), storageClass: 'STANDARD' })
    }
    pages.push({ versions, markers, next: `logs/${String(Math.floor((start + PAGE) / 3)).padStart(7, '0')}` })
  }
  const versioned = timed(() => {
    const fold = new VersionListingFold({ storageClasses: true, nowMs: NOW })
    for (const page of pages) fold.addPage(page.versions, page.markers, page.next)
    sink += fold.finish().bytes
  })
  if (sink < 0) throw new Error('unreachable')
  const rows: BenchRow[] = [
    { name: 'fold, 1,000,000 current objects', nanos: current },
    { name: 'fold, 1,000,000 entries of a versioned listing', nanos: versioned },
  ].map(({ name, nanos }) => ({
    name,
    figure: `${nanos.toFixed(0)} ns/object of CPU (${(1000 / nanos).toFixed(1)} M/s)`,
    baseline: `sum of sizes: ${bare.toFixed(1)} ns/object`,
    ratio: nanos / bare,
    target: `< ${TARGET_RATIO}x the bare sum`,
    pass: nanos / bare < TARGET_RATIO,
  }))
  report(rows)
} finally {
  build.remove()
}
