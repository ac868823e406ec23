import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sumUsage } from '../../src/exposition/usage-budget.js'
import type { BucketUsage } from '../../src/record/bucket-usage.js'
import { BucketUsageSchema } from '../../src/record/bucket-usage-schema.js'
import {
  ADDITIVE_FIGURES,
  mergeUsage,
  NOT_ADDITIVE_FIGURES,
  sumFigures,
} from '../../src/record/usage-sums.js'

interface SchemaNode {
  readonly type?: string
  readonly properties?: Readonly<Record<string, SchemaNode>>
  readonly patternProperties?: Readonly<Record<string, SchemaNode>>
  readonly items?: SchemaNode
}

/** Whether a schema's values hold a number anywhere (a count, counts per slot or per key). */
function holdsNumbers(node: SchemaNode): boolean {
  if (node.type === 'integer' || node.type === 'number') return true
  if (node.items) return holdsNumbers(node.items)
  return [...Object.values(node.properties ?? {}), ...Object.values(node.patternProperties ?? {})].some(
    holdsNumbers,
  )
}

/** Every path of the record's schema down to the first one that is classified or holds no structure. */
function unclassified(node: SchemaNode, classified: ReadonlySet<string>, prefix = ''): string[] {
  return Object.entries(node.properties ?? {}).flatMap(([name, child]) => {
    const path = prefix + name
    if (classified.has(path) || !holdsNumbers(child)) return []
    if (child.properties) return unclassified(child, classified, `${path}.`)
    return [path]
  })
}

const additive = ADDITIVE_FIGURES.map((figure) => figure.path as string)
const notAdditive = NOT_ADDITIVE_FIGURES.map((figure) => figure.path as string)

test('every numeric figure of a bucket record is additive or not, never both, never neither', () => {
  const classified = new Set([...additive, ...notAdditive])
  assert.deepEqual(
    unclassified(BucketUsageSchema as SchemaNode, classified),
    [],
    'a figure of BucketUsageSchema in neither ADDITIVE_FIGURES nor NOT_ADDITIVE_FIGURES (src/record/usage-sums.ts): say how two records combine it',
  )
  assert.deepEqual(
    additive.filter((path) => notAdditive.includes(path)),
    [],
    'in both lists',
  )
  assert.equal(classified.size, additive.length + notAdditive.length, 'listed twice')
  // No stale entry: each names a property of the schema.
  for (const path of classified) {
    const node = path
      .split('.')
      .reduce<SchemaNode | undefined>((at, name) => at?.properties?.[name], BucketUsageSchema as SchemaNode)
    assert.ok(node, `${path} is a figure of BucketUsageSchema`)
  }
})

/** A record with every figure, each count scaled by `k`. */
function everyFigure(k: number): BucketUsage {
  const counts = (length: number) => Array.from({ length }, (_, slot) => k * (slot + 1))
  return {
    bytes: 10 * k,
    objects: k,
    sizeHistogram: counts(21),
    sizeRanges: counts(10),
    largestObjectBytes: 9 * k,
    newestModifiedSeconds: 100 * k,
    oldestModifiedSeconds: 10 * k,
    ageBytes: counts(7),
    ageObjects: counts(7),
    storageClassBytes: { STANDARD: k, ...(k > 1 ? { GLACIER: k } : {}) },
    storageClassAgeBytes: { STANDARD: counts(7) },
    versions: {
      versions: 3 * k,
      deleteMarkers: k,
      noncurrentBytes: 4 * k,
      versionRanges: counts(7),
      noncurrentAgeBytes: counts(7),
      noncurrentAgeVersions: counts(7),
      expiredDeleteMarkers: k,
    },
    multipart: {
      incomplete: 2 * k,
      oldestInitiatedSeconds: 5 * k,
      bytes: 6 * k,
      unsized: k,
      stale: k,
      staleBytes: 3 * k,
    },
    quotaBytes: 1000 * k,
    unreadableEntries: k,
    prefixes: { rows: [{ prefix: 'a/', bytes: 10 * k, objects: k, errorBytes: 0 }], truncated: false },
    settings: { owner: `owner-${k}` },
    index: { shards: 11, objectsPerShard: k, fillRatio: 0, fillStatus: 'OK' },
  } as unknown as BucketUsage
}

test('_other and the walk merge sum every additive figure; _other leaves every other one out', () => {
  const [one, two] = [everyFigure(1), everyFigure(2)]
  const sum = sumUsage([one, two])
  assert.deepEqual(sum, sumFigures([one, two]))
  const expected = everyFigure(3) as unknown as Record<string, Record<string, unknown>>
  const got = sum as unknown as Record<string, Record<string, unknown>>
  for (const path of additive) {
    const [part, name] = path.includes('.') ? path.split('.') : [undefined, path]
    const value = part ? got[part]?.[name as string] : got[path]
    const want = part ? expected[part]?.[name as string] : expected[path]
    if (path === 'storageClassBytes') assert.deepEqual(value, { STANDARD: 3, GLACIER: 2 })
    else assert.deepEqual(value, want, path)
  }
  for (const path of notAdditive) {
    const [part, name] = path.includes('.') ? path.split('.') : [undefined, path]
    assert.equal(
      part ? (name as string) in (got[part] ?? {}) : path in got,
      false,
      `${path} left out of _other`,
    )
  }
  // Parts of one bucket: the same sums, and the others as one bucket's.
  const merged = mergeUsage(one, two)
  assert.deepEqual(merged.ageBytes, sum.ageBytes)
  assert.deepEqual(merged.multipart, { ...sum.multipart, oldestInitiatedSeconds: 5 })
  assert.equal(merged.largestObjectBytes, 18)
  assert.equal(merged.oldestModifiedSeconds, 10)
  assert.deepEqual(sumUsage([]), { bytes: 0, objects: 0 })
})
