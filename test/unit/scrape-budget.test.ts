import assert from 'node:assert/strict'
import { test } from 'node:test'
import { MIN_HEADER_BUDGET_MS, scrapeBudgetMs } from '../../src/server/scrape-budget.js'

test('the scrape header cuts the budget to 90% of its value, but not below the floor', () => {
  assert.equal(scrapeBudgetMs(10, undefined), 10_000)
  assert.equal(scrapeBudgetMs(10, '5'), 4_500)
  assert.equal(scrapeBudgetMs(10, ['5', '1']), 4_500)
  assert.equal(scrapeBudgetMs(10, '0.000001'), MIN_HEADER_BUDGET_MS)
  assert.equal(scrapeBudgetMs(10, '0.5'), MIN_HEADER_BUDGET_MS)
  // Nonsense is ignored rather than trusted.
  for (const header of ['0', '-1', 'abc', 'Infinity', ''])
    assert.equal(scrapeBudgetMs(10, header), 10_000, JSON.stringify(header))
  assert.equal(scrapeBudgetMs(10, '1e400'), 10_000)
})

test('the configured timeout alone may go below the floor', () => {
  assert.equal(scrapeBudgetMs(0.2, undefined), 200)
  assert.equal(scrapeBudgetMs(0.2, '0.000001'), 200)
  assert.equal(scrapeBudgetMs(0.0001, undefined), 1)
})
