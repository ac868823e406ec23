import assert from 'node:assert/strict'
import { test } from 'node:test'
import { type PagedListing, pages } from '../../src/scanner/sources/s3/pages.js'

interface Page {
  readonly items: readonly string[]
  readonly truncated?: boolean
  readonly next?: string
}

/** A listing over fixed answers, keyed by the position asked (undefined: the first page). */
function listing(answers: Record<string, Page>, extra: Partial<PagedListing<Page, string>> = {}) {
  const asked: (string | undefined)[] = []
  const paged: PagedListing<Page, string> = {
    action: 'ListObjectsV2 b',
    request: async (position) => {
      asked.push(position)
      const page = answers[position ?? '']
      assert.ok(page, `no answer for ${position}`)
      return page
    },
    truncated: (page) => page.truncated,
    next: (page) => page.next,
    ...extra,
  }
  return { paged, asked }
}

async function collect(paged: PagedListing<Page, string>): Promise<string[]> {
  const items: string[] = []
  for await (const page of pages(paged)) items.push(...page.items)
  return items
}

test('pages follow the positions the store gives until the last page', async () => {
  const { paged, asked } = listing({
    '': { items: ['a', 'b'], truncated: true, next: 'p2' },
    p2: { items: ['c'], truncated: true, next: 'p3' },
    p3: { items: ['d'], truncated: false },
  })
  assert.deepEqual(await collect(paged), ['a', 'b', 'c', 'd'])
  assert.deepEqual(asked, [undefined, 'p2', 'p3'])
})

test('an answer without a listing fails, before any of it is used', async () => {
  const { paged } = listing({ '': { items: ['a'] } })
  const items: string[] = []
  await assert.rejects(
    (async () => {
      for await (const page of pages(paged)) items.push(...page.items)
    })(),
    /^SourceError: ListObjectsV2 b: the answer holds no listing/,
  )
  assert.deepEqual(items, [])
})

test('a store that continues without a new position fails after the page is folded', async () => {
  for (const stall of [{ truncated: true }, { truncated: true, next: 'p2' }]) {
    const { paged } = listing({
      '': { items: ['a'], truncated: true, next: 'p2' },
      p2: { items: ['b'], ...stall },
    })
    const items: string[] = []
    await assert.rejects(
      (async () => {
        for await (const page of pages(paged)) items.push(...page.items)
      })(),
      /^SourceError: ListObjectsV2 b: the store said the listing continues but gave no new position$/,
    )
    assert.deepEqual(items, ['a', 'b'])
  }
})

test('positions compare with `same` when given, and the pages are bounded', async () => {
  const { paged } = listing(
    { '': { items: ['a'], truncated: true, next: 'P' }, P: { items: ['b'], truncated: true, next: 'p' } },
    { same: (a, b) => a.toLowerCase() === b.toLowerCase() },
  )
  await assert.rejects(collect(paged), /gave no new position/)

  const endless: PagedListing<Page, string> = {
    action: 'ListBuckets',
    request: async (position) => ({ items: [], truncated: true, next: `${Number(position ?? 0) + 1}` }),
    truncated: (page) => page.truncated,
    next: (page) => page.next,
    maxPages: 50,
  }
  let count = 0
  await assert.rejects(
    (async () => {
      for await (const _ of pages(endless)) count++
    })(),
    /^SourceError: ListBuckets: more than 50 pages; the listing is given up$/,
  )
  assert.equal(count, 50)
})
