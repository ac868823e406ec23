import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  MAX_STORAGE_CLASSES,
  OTHER_STORAGE_CLASS,
  STORAGE_CLASS_MAX_LENGTH,
  storageClassName,
} from '../../src/figures/storage-class/names.js'
import { UsageAccumulator } from '../../src/record/bucket-usage.js'
import { sumFigures } from '../../src/record/usage-sums.js'

/** A bucket's figures folded from objects of `classes`, one of `bytes` each, named as a listing names them. */
function bucketOf(classes: readonly string[], bytes = 1) {
  const fold = new UsageAccumulator({ storageClasses: true, nowMs: Date.UTC(2026, 0, 1) })
  for (const listed of classes)
    fold.add({ size: bytes, modifiedMs: Date.UTC(2025, 0, 1), storageClass: storageClassName(listed) })
  return fold.finish()
}

const classes = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, index) => `${prefix}${index}`)

test('storage class names: kept as listed unless long or odd, which count as _other', () => {
  assert.equal(storageClassName(''), '', 'empty stays empty: the fold counts it as STANDARD')
  assert.equal(storageClassName('STANDARD'), 'STANDARD')
  assert.equal(storageClassName('X'.repeat(STORAGE_CLASS_MAX_LENGTH)), 'X'.repeat(STORAGE_CLASS_MAX_LENGTH))
  assert.equal(storageClassName('X'.repeat(STORAGE_CLASS_MAX_LENGTH + 1)), OTHER_STORAGE_CLASS)
  assert.equal(storageClassName('COLD\nTIER'), OTHER_STORAGE_CLASS)
  assert.equal(storageClassName('TAB\tCLASS'), OTHER_STORAGE_CLASS)
  assert.equal(storageClassName('DEL\u007f'), OTHER_STORAGE_CLASS)
})

test('a bucket keeps 64 classes as themselves; its further classes count as _other, every byte kept', () => {
  const usage = bucketOf([...classes(300, 'C'), 'C0', 'C63', 'X'.repeat(100)])
  const byClass = usage.storageClassBytes ?? {}
  assert.equal(Object.keys(byClass).length, MAX_STORAGE_CLASSES + 1)
  assert.equal(byClass.C0, 2)
  assert.equal(byClass.C63, 2)
  assert.equal(byClass.C64, undefined)
  assert.equal(byClass[OTHER_STORAGE_CLASS], 300 - MAX_STORAGE_CLASSES + 1)
  assert.equal(Object.keys(usage.storageClassAgeBytes ?? {}).length, MAX_STORAGE_CLASSES + 1)
})

test("a store that listed 300 classes once does not turn later buckets' classes into _other", () => {
  bucketOf(classes(300, 'EARLY'))
  assert.deepEqual(bucketOf(['LATE', 'GLACIER', 'LATE']).storageClassBytes, { LATE: 2, GLACIER: 1 })
})

test('a sum of buckets (BUCKETS_TOP_N `_other`) keeps 64 classes too, the rest in _other', () => {
  const sum = sumFigures([bucketOf(classes(64, 'A')), bucketOf(classes(64, 'B')), bucketOf(['A0', 'B0'], 10)])
  const byClass = sum.storageClassBytes ?? {}
  assert.equal(Object.keys(byClass).length, MAX_STORAGE_CLASSES + 1)
  assert.equal(byClass.A0, 11, 'a class kept gathers its bytes from every bucket')
  assert.equal(byClass[OTHER_STORAGE_CLASS], 64 + 10)
  assert.equal(
    Object.values(byClass).reduce((total, bytes) => total + (bytes as number), 0),
    128 + 20,
  )
  assert.equal(Object.keys(sum.storageClassAgeBytes ?? {}).length, MAX_STORAGE_CLASSES + 1)
})
