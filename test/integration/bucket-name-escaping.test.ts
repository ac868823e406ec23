import assert from 'node:assert/strict'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { rawGet, startExporter } from '../support/exporter.js'
import { parseExposition, sampleValue } from '../support/exposition.js'
import { promtoolCheckMetrics, promtoolSkipReason } from '../support/promtool.js'
import { scratchFolder } from '../support/scratch.js'
import { bucketsIn } from '../support/usage-expectations.js'

/**
 * Bucket names that need escaping in the exposition formats. S3 bucket names cannot hold them,
 * but the fs source takes any folder name, and Linux allows every byte but `/` and NUL: quotes,
 * backslashes, a newline, non-ASCII. Each must come out escaped so that promtool accepts the scrape
 * and a parser gets the exact name back.
 */

const NAMES: Readonly<Record<string, number>> = {
  'say "cheese"': 11,
  'back\\slash': 22,
  'two\nlines': 33,
  'ends-with-backslash\\': 44,
  '\\"\n all three': 55,
  'café-日本-ünï': 66,
  'tab\tand } brace, comma="x"': 77,
}

test('bucket names with quotes, backslashes, newlines and non-ASCII: escaped, promtool-clean, exact', {
  skip: promtoolSkipReason(),
}, async (t) => {
  const folder = await scratchFolder(t, 'objstore-escaping-')
  const data = join(folder, 'data')
  for (const [name, size] of Object.entries(NAMES)) {
    await mkdir(join(data, name), { recursive: true })
    await writeFile(join(data, name, 'object'), Buffer.alloc(size))
  }
  const env = { DATA_DIR: data, STATE_FILE: join(folder, 'state.json') }
  const exporter = await startExporter(env)
  let closed = false
  t.after(() => (closed ? undefined : exporter.close()))

  const text = (await rawGet(`${exporter.baseUrl}/metrics`)).body.toString('utf8')
  assert.equal(promtoolCheckMetrics(text), '', 'promtool check metrics finds nothing')
  assert.match(text, /bucket="say \\"cheese\\""/)
  assert.match(text, /bucket="back\\\\slash"/)
  assert.match(text, /bucket="two\\nlines"/)
  assert.ok(text.includes('bucket="café-日本-ünï"'), 'non-ASCII as UTF-8, unescaped')

  const openMetrics = (
    await rawGet(`${exporter.baseUrl}/metrics`, { accept: 'application/openmetrics-text; version=1.0.0' })
  ).body.toString('utf8')
  for (const body of [text, openMetrics]) {
    const scrape = parseExposition(body)
    assert.deepEqual(bucketsIn(scrape), Object.keys(NAMES).sort())
    for (const [name, size] of Object.entries(NAMES)) {
      assert.equal(sampleValue(scrape, 'objstore_bucket_usage_total_bytes', { bucket: name }), size, name)
    }
    // Every sample line is one line: no name broke out of its label value.
    for (const line of body.split('\n')) {
      if (line !== '' && !line.startsWith('#')) assert.match(line, /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? \S+$/)
    }
  }

  // The same names through the state file, into a restarted exporter.
  await exporter.close()
  closed = true
  const restarted = await startExporter({ ...env, SCAN_INTERVAL_SECONDS: '3600' })
  t.after(() => restarted.close())
  const reloaded = await restarted.scrape()
  assert.deepEqual(bucketsIn(reloaded), Object.keys(NAMES).sort())
})
