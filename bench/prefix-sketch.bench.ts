import { benchBuild } from './support/build.js'
import { type BenchRow, median, report } from './support/report.js'

/**
 * Issue 14: memory per bucket of the prefix sketch (src/figures/prefixes/sketch.ts) while a bucket
 * with 1,000,000 distinct prefixes is folded, against an exact map of every prefix (what an
 * unbounded count would hold), measured as V8 heap after a full collection; and what a served
 * bucket keeps in the snapshot (the top K rows). Prefixes are 20-30 characters, as
 * `logs/2026-01-02/host-123/` are. Run with `npm run bench -- prefix`.
 */

type SketchModule = typeof import('../src/figures/prefixes/sketch.js')

const DISTINCT = 1_000_000
const REPEATS = 3
/** Bounded: the sketch at K = 1,000 (8,000 tracked) must stay far below the exact map. */
const TARGET_RATIO = 0.1

const gc = (globalThis as { gc?: () => void }).gc
if (!gc) throw new Error('run with --expose-gc (npm run bench does)')

function heapMb(): number {
  gc?.()
  gc?.()
  return process.memoryUsage().heapUsed / 1024 / 1024
}

const prefixOf = (index: number) => `logs/${String(index).padStart(7, '0')}-host/`

type Holder = { add(prefix: string, bytes: number): void; keep(): unknown }

/**
 * Heap held by one `build()` after folding DISTINCT prefixes into it. One frame per measurement:
 * a holder left in a register of a frame still running stays reachable and hides the next one.
 */
function heldOnce(build: () => Holder): { mb: number; kept: unknown } {
  const before = heapMb()
  const holder = build()
  for (let index = 0; index < DISTINCT; index++) holder.add(prefixOf(index), (index * 7919) % 100_000)
  const kept = holder.keep()
  return { mb: heapMb() - before, kept }
}

/** The median of REPEATS measurements, and the last thing held. */
function heldMb(build: () => Holder): { mb: number; kept: unknown } {
  const samples: number[] = []
  let last: { mb: number; kept: unknown } | undefined
  for (let repeat = 0; repeat < REPEATS; repeat++) {
    last = undefined
    last = heldOnce(build)
    samples.push(last.mb)
  }
  return { mb: median(samples), kept: last?.kept }
}

const build = benchBuild()
try {
  const { PrefixSketch, sketchCapacity, topPrefixes } = await build.load<SketchModule>(
    'figures/prefixes/sketch.js',
  )
  const exact = heldMb(() => {
    const map = new Map<string, { bytes: number; objects: number }>()
    return {
      add(prefix, bytes) {
        const entry = map.get(prefix)
        if (entry) {
          entry.bytes += bytes
          entry.objects++
        } else map.set(prefix, { bytes, objects: 1 })
      },
      keep: () => map,
    }
  })
  const rows: BenchRow[] = []
  for (const topK of [10, 100, 1000]) {
    const sketch = heldMb(() => {
      const inner = new PrefixSketch(sketchCapacity(topK))
      return { add: (prefix, bytes) => inner.add(prefix, bytes), keep: () => inner }
    })
    // Every object a new prefix: each add replaces the smallest (the sketch's worst case).
    const timed = new PrefixSketch(sketchCapacity(topK))
    const started = performance.now()
    for (let index = 0; index < DISTINCT; index++) timed.add(prefixOf(index), (index * 7919) % 100_000)
    const nsPerObject = ((performance.now() - started) * 1e6) / DISTINCT
    const served = topPrefixes((sketch.kept as InstanceType<typeof PrefixSketch>).figures(), topK)
    const servedKb = Buffer.byteLength(JSON.stringify(served)) / 1024
    rows.push({
      name: `prefix sketch, K=${topK} (${sketchCapacity(topK)} tracked), 1e6 distinct prefixes`,
      figure: `${(sketch.mb * 1024).toFixed(0)} KiB heap while folding; ${servedKb.toFixed(1)} KiB served (JSON); ~${nsPerObject.toFixed(0)} ns/object`,
      baseline: `exact map: ${exact.mb.toFixed(1)} MiB`,
      ratio: sketch.mb / exact.mb,
      target: `< ${TARGET_RATIO}x the exact map`,
      pass: sketch.mb / exact.mb < TARGET_RATIO,
    })
  }
  report(rows)
} finally {
  build.remove()
}
