import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { missingPaths, namedPaths, treePaths } from '../../scripts/architecture-paths.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

test('every file and folder ARCHITECTURE.md names exists', () => {
  const page = readFileSync(`${ROOT}ARCHITECTURE.md`, 'utf8')
  assert.ok(namedPaths(page).length > 100, 'the page names the tree')
  assert.deepEqual(missingPaths(page, treePaths(ROOT)), [])
})

test('a full path must exist where it says, a bare name anywhere in the tree', () => {
  const tree = [
    'src/',
    'src/config/',
    'src/scanner/',
    'src/scanner/snapshot.ts',
    'src/config/env/',
    'src/config/env/drives.ts',
  ]
  const page = [
    '`src/scanner/snapshot.ts` `snapshot.ts` `scanner/snapshot.ts` `../snapshot.ts` `env/*.ts` `src/config/`',
    '`src/snapshot.ts` `slices.ts` `src/scanner/slices.ts` `env/` `gone/` `npm run docs` `Object.freeze`',
  ].join('\n')
  assert.deepEqual(missingPaths(page, tree), [
    'src/snapshot.ts',
    'slices.ts',
    'src/scanner/slices.ts',
    'gone/',
  ])
})
