import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadConfig } from '../../src/config/load.js'
import { refusalLines } from '../support/config-refusal.js'
import { startExporter } from '../support/exporter.js'
import { findSamples, sampleValue } from '../support/exposition.js'

const load = (env: Record<string, string>) => loadConfig(env, { dotenvPath: false })

test('STORAGE_PRICES and REQUEST_PRICES parse into the price table, spaces allowed around entries', () => {
  const config = load({
    STORAGE_PRICES: 'STANDARD=0.023,STANDARD_IA=0.0125, GLACIER = 0.0036',
    REQUEST_PRICES: 'list=0.005,other=.0004',
  })
  assert.deepEqual(
    [...config.PRICES.storage],
    [
      ['STANDARD', 0.023],
      ['STANDARD_IA', 0.0125],
      ['GLACIER', 0.0036],
    ],
  )
  assert.deepEqual(
    [...config.PRICES.requests],
    [
      ['list', 0.005],
      ['other', 0.0004],
    ],
  )
})

test('no price is assumed: unset variables give an empty table', () => {
  const config = load({})
  assert.equal(config.PRICES.storage.size, 0)
  assert.equal(config.PRICES.requests.size, 0)
})

test('a bad price table is one line naming the variable and what it expects', () => {
  const cases: Array<[Record<string, string>, string]> = [
    [
      { STORAGE_PRICES: 'STANDARD=0.023,GLACIER' },
      'STORAGE_PRICES="STANDARD=0.023,GLACIER": expected comma-separated CLASS=PRICE entries in currency per GiB-month (`STANDARD=0.023,GLACIER=0.0036`)',
    ],
    [
      { STORAGE_PRICES: 'STANDARD=-1' },
      'STORAGE_PRICES="STANDARD=-1": expected comma-separated CLASS=PRICE entries in currency per GiB-month (`STANDARD=0.023,GLACIER=0.0036`)',
    ],
    [
      { STORAGE_PRICES: 'STANDARD=$0.02' },
      'STORAGE_PRICES="STANDARD=$0.02": expected comma-separated CLASS=PRICE entries in currency per GiB-month (`STANDARD=0.023,GLACIER=0.0036`)',
    ],
    [
      { STORAGE_PRICES: 'STANDARD=0.023,STANDARD=0.02' },
      'STORAGE_PRICES="STANDARD=0.023,STANDARD=0.02": expected each class once, got STANDARD more than once',
    ],
    [
      { STORAGE_PRICES: `STANDARD=${'9'.repeat(400)}` },
      `STORAGE_PRICES="STANDARD=${'9'.repeat(400)}": expected finite prices, got too large a number for STANDARD`,
    ],
    [
      { REQUEST_PRICES: 'get=0.0004' },
      'REQUEST_PRICES="get=0.0004": expected comma-separated list=PRICE and other=PRICE entries in currency per 1,000 requests (`list=0.005,other=0.0004`)',
    ],
    [
      { REQUEST_PRICES: 'list=0.005,list=0.004' },
      'REQUEST_PRICES="list=0.005,list=0.004": expected each class once, got list more than once',
    ],
  ]
  for (const [env, line] of cases)
    assert.deepEqual(
      refusalLines(() => load(env)),
      [line],
    )
})

test('the scrape carries one price gauge per class set, and no price family when none is set', async (t) => {
  const priced = await startExporter({
    STORAGE_PRICES: 'STANDARD=0.023,GLACIER=0.0036',
    REQUEST_PRICES: 'list=0.005',
  })
  t.after(() => priced.close())
  const scrape = await priced.scrape()
  assert.equal(scrape.types.get('objstore_storage_price_per_gibibyte_month'), 'gauge')
  assert.equal(
    sampleValue(scrape, 'objstore_storage_price_per_gibibyte_month', { storage_class: 'STANDARD' }),
    0.023,
  )
  assert.equal(
    sampleValue(scrape, 'objstore_storage_price_per_gibibyte_month', { storage_class: 'GLACIER' }),
    0.0036,
  )
  assert.equal(findSamples(scrape, 'objstore_storage_price_per_gibibyte_month').length, 2)
  assert.deepEqual(
    findSamples(scrape, 'objstore_request_price_per_thousand').map((sample) => [
      sample.labels.request_class,
      sample.value,
    ]),
    [['list', 0.005]],
  )

  const unpriced = await startExporter()
  t.after(() => unpriced.close())
  const plain = await unpriced.scrape()
  assert.equal(plain.types.has('objstore_storage_price_per_gibibyte_month'), false)
  assert.equal(plain.types.has('objstore_request_price_per_thousand'), false)
  assert.equal(findSamples(plain, 'objstore_scrape_collector_success', { collector: 'prices' }).length, 0)
})
