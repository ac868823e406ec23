import assert from 'node:assert/strict'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { countLines, longReason, MAX_LINES, measureFiles } from '../../scripts/check-file-length.js'
import { scratchFolder } from '../support/scratch.js'

test('lines are counted as wc -l counts them, a last line without newline included', () => {
  assert.equal(countLines(''), 0)
  assert.equal(countLines('a\n'), 1)
  assert.equal(countLines('a\nb'), 2)
  assert.equal(countLines('a\n\nb\n'), 3)
})

test('a long: reason counts only in the opening comment and only with a few words', () => {
  assert.equal(longReason('// long: one table, split later\nimport x from "y"\n'), 'one table, split later')
  assert.equal(
    longReason('/**\n * long: one table, split later\n */\nconst a = 1\n'),
    'one table, split later',
  )
  assert.equal(
    longReason('#!/usr/bin/env node\n\n// long: one table, split later\n'),
    'one table, split later',
  )
  assert.equal(longReason('/** long: one table, split later */\nconst a = 1\n'), 'one table, split later')
  assert.equal(longReason('// long: big\nconst a = 1\n'), undefined, 'a reason of a few words')
  assert.equal(longReason('import x from "y"\n// long: one table, split later\n'), undefined, 'after code')
  assert.equal(longReason('/**\n * A module.\n */\nconst a = 1 // long: one table, split later\n'), undefined)
})

test('every .ts file under a folder is measured, its reason read', async (t) => {
  const folder = await scratchFolder(t)
  const long = 'const a = 1\n'.repeat(MAX_LINES + 1)
  await writeFile(join(folder, 'long.ts'), long)
  await writeFile(join(folder, 'marked.ts'), `// long: a table of many rows\n${long}`)
  await writeFile(join(folder, 'notes.md'), long)
  const files = await measureFiles(folder)
  assert.deepEqual(
    files.map(({ path, lines, reason }) => [path.slice(folder.length + 1), lines, reason]),
    [
      ['long.ts', MAX_LINES + 1, undefined],
      ['marked.ts', MAX_LINES + 2, 'a table of many rows'],
    ],
  )
})
