import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  MAX_STORAGE_CLASSES,
  OTHER_STORAGE_CLASS,
  STORAGE_CLASS_MAX_LENGTH,
  storageClassName,
} from '../../src/record/storage-classes.js'

// The names seen are counted process-wide: this file runs in a process of its own (node --test).
test('storage class names: kept as listed up to the bound; odd, long and later ones are _other', () => {
  assert.equal(storageClassName(''), '', 'empty stays empty: the fold counts it as STANDARD')
  assert.equal(storageClassName('STANDARD'), 'STANDARD')
  assert.equal(storageClassName('X'.repeat(STORAGE_CLASS_MAX_LENGTH)), 'X'.repeat(STORAGE_CLASS_MAX_LENGTH))
  assert.equal(storageClassName('X'.repeat(STORAGE_CLASS_MAX_LENGTH + 1)), OTHER_STORAGE_CLASS)
  assert.equal(storageClassName('COLD\nTIER'), OTHER_STORAGE_CLASS)
  assert.equal(storageClassName('TAB\tCLASS'), OTHER_STORAGE_CLASS)
  assert.equal(storageClassName('DEL\u007f'), OTHER_STORAGE_CLASS)
  for (let index = 2; index < MAX_STORAGE_CLASSES; index++)
    assert.equal(storageClassName(`C${index}`), `C${index}`)
  assert.equal(storageClassName('ONE_TOO_MANY'), OTHER_STORAGE_CLASS, 'past 64 names')
  assert.equal(storageClassName('STANDARD'), 'STANDARD', 'names seen before stay themselves')
  assert.equal(storageClassName('C40'), 'C40')
})
