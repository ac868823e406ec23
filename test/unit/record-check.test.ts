import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Type } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { compileRecordCheck } from '../../src/snapshot/record-check.js'
import { BucketRecordSchema } from '../../src/snapshot/state-file-format.js'
import { generateSnapshot } from '../support/usage-snapshots.js'

/**
 * The plain-loop check of a state file's bucket record answers what TypeBox's compiled check of
 * the same schema answers: over every generated record (every family) and over thousands of
 * records broken one place at a time (each value replaced by values of every wrong kind, keys
 * added where they are refused or ignored).
 */

const typebox = TypeCompiler.Compile(BucketRecordSchema)
const plain = compileRecordCheck(BucketRecordSchema)

/** Values of every kind a hand-edited or foreign file could hold where a figure belongs. */
const WRONG_VALUES: readonly unknown[] = [
  undefined,
  null,
  -1,
  0.5,
  1e300,
  -1e300,
  Number.MAX_SAFE_INTEGER + 2,
  '',
  '7',
  'x'.repeat(300),
  true,
  [],
  [1],
  {},
  { bytes: 1 },
  new Date(0),
]

type Path = readonly (string | number)[]

/** Every path to a value inside `value` (objects and arrays walked), the root excluded. */
function pathsOf(value: unknown, prefix: Path = []): Path[] {
  if (value === null || typeof value !== 'object') return []
  const keys = Array.isArray(value) ? value.map((_, index) => index) : Object.keys(value)
  return keys.flatMap((key) => {
    const path = [...prefix, key]
    return [path, ...pathsOf((value as Record<string | number, unknown>)[key], path)]
  })
}

/** A copy of `record` with `change` applied to the value at `path`'s parent. */
function changed(
  record: unknown,
  path: Path,
  change: (parent: Record<string | number, unknown>, key: string | number) => void,
): unknown {
  const copy = structuredClone(record)
  let parent = copy as Record<string | number, unknown>
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>
  change(parent, path[path.length - 1] as string | number)
  return copy
}

function agree(value: unknown, what: string): boolean {
  const expected = typebox.Check(value)
  assert.equal(plain(value), expected, `${what}: TypeBox says ${expected}`)
  return expected
}

test('every generated record: valid by both checks', () => {
  const { snapshot } = generateSnapshot({ buckets: 400, objectsPerBucket: 12, prefixes: true })
  for (const record of snapshot.buckets) assert.ok(agree(structuredClone(record), record.name))
})

test('records broken one place at a time: the two checks agree on each, and most are refused', () => {
  const { snapshot } = generateSnapshot({ buckets: 40, objectsPerBucket: 12, prefixes: true })
  let cases = 0
  let refused = 0
  for (const record of snapshot.buckets.slice(0, 12)) {
    for (const path of pathsOf(record)) {
      const where = `${record.name} /${path.join('/')}`
      for (const wrong of WRONG_VALUES) {
        cases++
        if (
          !agree(
            changed(record, path, (parent, key) => (parent[key] = wrong)),
            `${where} = ${String(wrong)}`,
          )
        )
          refused++
      }
      cases += 3
      if (
        !agree(
          changed(record, path, (parent, key) => delete parent[key]),
          `${where} deleted`,
        )
      )
        refused++
      // Keys added beside it: refused in maps whose keys have a pattern, ignored in objects.
      for (const key of ['extra', 'A\nB', '__proto__'])
        agree(
          changed(record, path, (parent) =>
            Object.defineProperty(parent, key, {
              value: 1,
              enumerable: true,
              writable: true,
              configurable: true,
            }),
          ),
          `${where}: key ${JSON.stringify(key)} added`,
        )
    }
  }
  assert.ok(cases > 10_000, `${cases} broken records`)
  assert.ok(refused > cases / 2, `${refused} of ${cases} refused`)
})

test('values that are not records at all, and parsed JSON with a __proto__ key', () => {
  for (const value of [
    ...WRONG_VALUES,
    JSON.parse('{"name":"a","scanSuccess":true,"scanDurationSeconds":1,"__proto__":{"x":1}}'),
  ])
    agree(value, JSON.stringify(value) ?? String(value))
})

test('a schema with a keyword the compiler does not know is refused, not checked loosely', () => {
  assert.throws(
    () => compileRecordCheck(Type.String({ format: 'email' })),
    /keyword format of String is not supported/,
  )
  assert.throws(() => compileRecordCheck(Type.Integer({ exclusiveMinimum: 0 })), /keyword exclusiveMinimum/)
  assert.throws(
    () => compileRecordCheck(Type.Union([Type.String(), Type.Number()])),
    /only unions of literals/,
  )
  assert.throws(() => compileRecordCheck(Type.Date()), /schema kind Date is not supported/)
})
