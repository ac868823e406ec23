import assert from 'node:assert/strict'
import { test } from 'node:test'
import { usageCollectorFamilies } from '../../src/collectors/usage-series.js'
import { FIGURE_COMBINATIONS, figureFolds } from '../../src/figures/assemble.js'
import { FIGURES } from '../../src/figures/list.js'
import type { AnyFigure } from '../../src/figures/types.js'
import type { Families } from '../../src/metrics/families.js'
import type { MetricSink } from '../../src/metrics/metric-set.js'
import { type BucketUsage, UsageAccumulator } from '../../src/record/bucket-usage.js'
import { ADDITIVE_FIGURES, mergeUsage, NOT_ADDITIVE_FIGURES } from '../../src/record/usage-sums.js'
import { recordProblem } from '../../src/snapshot/state-file-format.js'

const LISTED: readonly AnyFigure[] = FIGURES

/** A figure's property paths as the sums name them: a part's properties each (`versions.versions`). */
function pathsOf(figure: AnyFigure): string[] {
  return Object.entries(figure.combine as Record<string, object>).flatMap(([property, combination]) =>
    'part' in combination
      ? Object.keys(combination.part as object).map((name) => `${property}.${name}`)
      : [property],
  )
}
const NOW_MS = Date.UTC(2026, 0, 1)

/** A sink that notes the families written to. */
function recordingSink(): { sink: MetricSink<Families>; written: Set<string> } {
  const written = new Set<string>()
  return {
    written,
    sink: {
      set: (name) => {
        written.add(name)
      },
      histogram: (name) => {
        written.add(name)
      },
    },
  }
}

function recordWith(usage: Partial<BucketUsage>): unknown {
  return { name: 'b', scanSuccess: true, scanDurationSeconds: 1, usage: { bytes: 0, objects: 0, ...usage } }
}

for (const figure of LISTED) {
  test(`figure ${figure.name}: its example is a valid record part and writes each of its families`, () => {
    // A figure whose properties live in others' parts (`reads`) is written from their examples.
    const example = Object.assign({}, ...(figure.reads ?? []).map((read) => read.example), figure.example)
    // One object of one byte: every example is a record a fold could give.
    assert.equal(recordProblem(recordWith({ bytes: 1, objects: 1, ...example }), NOW_MS), undefined)
    const { sink, written } = recordingSink()
    figure.write(sink, 'b', example, { bytes: 1, objects: 1 })
    assert.deepEqual([...written].sort(), Object.keys(figure.families).sort())
    for (const name of Object.keys(figure.families))
      assert.equal(usageCollectorFamilies[name as keyof typeof usageCollectorFamilies]?.name, name)
  })

  test(`figure ${figure.name}: each of its properties is summed or merged, as the docs say`, () => {
    for (const property of Object.keys(figure.example))
      assert.ok(
        pathsOf(figure).some((path) => path === property || path.startsWith(`${property}.`)),
        property,
      )
    for (const property of pathsOf(figure)) {
      const classified = [...ADDITIVE_FIGURES, ...NOT_ADDITIVE_FIGURES].filter(
        ({ path }) => path === property,
      )
      assert.equal(classified.length, 1, property)
    }
  })
}

test('the figures are assembled in the list order, each property once', () => {
  const paths = FIGURE_COMBINATIONS.map(({ path }) => path)
  assert.equal(new Set(paths).size, paths.length)
  assert.deepEqual(paths, LISTED.flatMap(pathsOf))
  assert.equal(
    // Options that ask every figure: a fold declines when they ask none of it.
    figureFolds({ storageClasses: true, nowMs: NOW_MS, ages: true, prefixTopK: 10 }).length,
    LISTED.filter((f) => f.fold && f.entries !== 'versions').length,
  )
  assert.equal(
    figureFolds({ storageClasses: true, nowMs: NOW_MS, versions: true }, 'versions').length,
    LISTED.filter((f) => f.fold && f.entries === 'versions').length,
  )
})

test('empty objects: the fold counts the objects of zero bytes, and parts add up to the whole', () => {
  const sizes = [0, 5, 0, 1024, 0, 1]
  const whole = new UsageAccumulator({ storageClasses: true, nowMs: NOW_MS })
  const left = new UsageAccumulator({ storageClasses: true, nowMs: NOW_MS })
  const right = new UsageAccumulator({ storageClasses: true, nowMs: NOW_MS })
  sizes.forEach((size, index) => {
    whole.add({ size, modifiedMs: NOW_MS })
    ;(index % 2 ? left : right).add({ size, modifiedMs: NOW_MS })
  })
  assert.equal(whole.finish().emptyObjects, 3)
  assert.equal(left.finish().emptyObjects, 0)
  assert.deepEqual(mergeUsage(left.finish(), right.finish()), whole.finish())
})

test('empty objects: a stored record with more empty objects than objects is refused', () => {
  assert.equal(recordProblem(recordWith({ objects: 2, emptyObjects: 2 }), NOW_MS), undefined)
  assert.match(
    recordProblem(recordWith({ objects: 2, emptyObjects: 3 }), NOW_MS) ?? '',
    /3 empty objects among 2 objects/,
  )
  assert.match(recordProblem(recordWith({ emptyObjects: -1 }), NOW_MS) ?? '', /emptyObjects/)
})
