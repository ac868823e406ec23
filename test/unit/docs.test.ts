import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { test } from 'node:test'
import { updateReadme } from '../../scripts/docs.js'
import { catalogue, familyNames } from '../../src/collectors/catalogue.js'
import { envSchema } from '../../src/config/schema.js'

test('the README configuration table and metrics reference match the schema and the catalogue', async () => {
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8')
  assert.equal(readme, updateReadme(readme), 'README is stale: run `npm run docs`')
  for (const name of Object.keys(envSchema.properties)) assert.ok(readme.includes(`| \`${name}\` |`), name)
  for (const key of familyNames) assert.ok(readme.includes(`\`objstore_${catalogue[key].name}\``), key)
})
