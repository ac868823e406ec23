import assert from 'node:assert/strict'
import { test } from 'node:test'
import { type PagedListing, pages } from '../../src/sources/s3/pages.js'

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

test('positions compare by `identify` when given, and the pages are bounded', async () => {
  const { paged } = listing(
    { '': { items: ['a'], truncated: true, next: 'P' }, P: { items: ['b'], truncated: true, next: 'p' } },
    { identify: (position) => position.toLowerCase() },
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

test('a continuation token given before (A -> B -> A) ends the listing at once, before it is asked again', async () => {
  const { paged, asked } = listing({
    '': { items: ['a'], truncated: true, next: 'A' },
    A: { items: ['b'], truncated: true, next: 'B' },
    B: { items: ['c'], truncated: true, next: 'A' },
  })
  await assert.rejects(
    collect(paged),
    /^SourceError: ListObjectsV2 b: page 3 gives a continuation token it gave before: the listing loops; given up after 3 pages$/,
  )
  assert.deepEqual(asked, [undefined, 'A', 'B'])
})

test('a marker cycle of a versions listing: the same key and version id again ends it', async () => {
  const { markerIdentity } = await import('../../src/sources/s3/pages.js')
  type Marker = { key: string; id: string | undefined }
  const next: Record<string, Marker> = {
    '': { key: 'k1', id: 'v1' },
    'k1 v1': { key: 'k1', id: 'v2' },
    'k1 v2': { key: 'k1', id: 'v1' },
  }
  const asked: string[] = []
  const versions: PagedListing<{ next: Marker }, Marker> = {
    action: 'ListObjectVersions b',
    request: async (position) => {
      const at = position ? `${position.key} ${position.id}` : ''
      asked.push(at)
      return { next: next[at] as Marker }
    },
    truncated: () => true,
    next: (page) => page.next,
    identify: markerIdentity,
  }
  await assert.rejects(
    (async () => {
      for await (const _ of pages(versions));
    })(),
    /page 3 gives a continuation token it gave before/,
  )
  assert.deepEqual(asked, ['', 'k1 v1', 'k1 v2'])
})
