import assert from 'node:assert/strict'
import { test } from 'node:test'
import { UsageAccumulator } from '../../src/record/bucket-usage.js'
import { ListingSlots } from '../../src/sources/listings-in-flight.js'
import { compareKeys, type KeyRange, pastRange } from '../../src/sources/s3/key-ranges.js'
import { listByRanges, type RangedListing } from '../../src/sources/s3/ranged-listing.js'

/** Keys 0..n-1 as `k-000123`, each of size = its index, listed in pages of 100 from a range's start. */
function memoryListing(
  count: number,
  slots: ListingSlots | undefined,
  options: { failAfter?: string; maxRanges?: number; probeFails?: boolean } = {},
) {
  const keys = Array.from({ length: count }, (_, index) => `k-${String(index).padStart(6, '0')}`)
  const starts: Array<string | undefined> = []
  let inFlight = 0
  let mostInFlight = 0
  const listing: RangedListing<{ keys: string[]; truncated: boolean }, UsageAccumulator> = {
    signal: new AbortController().signal,
    slots,
    split: { maxRanges: options.maxRanges ?? 8, maxProbes: 32, afterPages: 2 },
    newFold: () => new UsageAccumulator({ storageClasses: true, nowMs: 0 }),
    async *pages(range: KeyRange, signal: AbortSignal) {
      starts.push(range.after)
      let index =
        range.after === undefined ? 0 : keys.findIndex((key) => compareKeys(key, range.after as string) > 0)
      if (index < 0) index = keys.length
      for (let bound = 0; bound < 1000; bound++) {
        inFlight++
        mostInFlight = Math.max(mostInFlight, inFlight)
        await new Promise((resolve) => setImmediate(resolve))
        inFlight--
        signal.throwIfAborted()
        const page = keys.slice(index, index + 100)
        if (options.failAfter && page.some((key) => compareKeys(key, options.failAfter as string) > 0)) {
          throw new Error('store failed on a range')
        }
        index += page.length
        yield { keys: page, truncated: index < keys.length }
        if (index >= keys.length) return
      }
    },
    foldPage(fold, page, range) {
      for (const key of page.keys) {
        if (pastRange(key, range)) return false
        fold.add({ size: Number(key.slice(2)), modifiedMs: 1_000, storageClass: 'STANDARD' })
      }
      return true
    },
    continuesAfter: (page) => (page.truncated ? page.keys.at(-1) : undefined),
    finish: (fold) => fold.finish(),
    async probe(request) {
      if (options.probeFails) throw new Error('AccessDenied on the probe')
      const after = keys.filter(
        (key) => key.startsWith(request.prefix) && compareKeys(key, request.startAfter) > 0,
      )
      return {
        keys: after.slice(0, request.maxKeys),
        prefixes: [],
        truncated: after.length > request.maxKeys,
      }
    },
  }
  return { listing, starts, keys, mostInFlight: () => mostInFlight }
}

function sequentialFold(count: number) {
  const fold = new UsageAccumulator({ storageClasses: true, nowMs: 0 })
  for (let index = 0; index < count; index++)
    fold.add({ size: index, modifiedMs: 1_000, storageClass: 'STANDARD' })
  return fold.finish()
}

test('a long listing splits on spare slots and folds to the figures of one listing', async () => {
  const slots = new ListingSlots(4)
  const release = await slots.acquire()
  const store = memoryListing(5_000, slots)
  assert.deepStrictEqual(await listByRanges(store.listing), sequentialFold(5_000))
  release()
  assert.ok(store.starts.length > 2, `ranges from ${store.starts}`)
  assert.ok(store.mostInFlight() > 1 && store.mostInFlight() <= 4, `${store.mostInFlight()} pages at once`)
  assert.equal(slots.spare, 4, 'every slot given back')
})

test('no spare slot, no range: one listing, as before', async () => {
  const slots = new ListingSlots(1)
  const release = await slots.acquire()
  const store = memoryListing(5_000, slots)
  assert.deepStrictEqual(await listByRanges(store.listing), sequentialFold(5_000))
  release()
  assert.deepEqual(store.starts, [undefined])
  const off = memoryListing(5_000, new ListingSlots(8), { maxRanges: 1 })
  assert.deepStrictEqual(await listByRanges(off.listing), sequentialFold(5_000))
  assert.deepEqual(off.starts, [undefined])
})

test('a range failing fails the bucket, after every range stopped; slots given back', async () => {
  const slots = new ListingSlots(6)
  const release = await slots.acquire()
  const store = memoryListing(8_000, slots, { failAfter: 'k-006500' })
  await assert.rejects(listByRanges(store.listing), /store failed on a range/)
  release()
  assert.ok(store.starts.length > 2)
  assert.equal(slots.spare, 6)
})

test('a plan that fails leaves the bucket listed as one, not failed', async () => {
  const slots = new ListingSlots(4)
  const release = await slots.acquire()
  const store = memoryListing(5_000, slots, { probeFails: true })
  const failures: unknown[] = []
  const listing = { ...store.listing, onPlanFailed: (error: unknown) => failures.push(error) }
  assert.deepStrictEqual(await listByRanges(listing), sequentialFold(5_000))
  release()
  assert.deepEqual(store.starts, [undefined])
  assert.equal(failures.length, 1)
  assert.equal(slots.spare, 4)
})

test('slots: waiters are served in order, before anyone who only tries', async () => {
  const slots = new ListingSlots(1)
  const first = await slots.acquire()
  const order: string[] = []
  const waiting = slots.acquire().then((release) => {
    order.push('waiter')
    return release
  })
  assert.equal(slots.tryAcquire(), undefined)
  first()
  first()
  const second = await waiting
  assert.equal(slots.tryAcquire(), undefined, 'the slot went to the waiter')
  second()
  assert.equal(slots.spare, 1)
  assert.deepEqual(order, ['waiter'])
})

test('versions folded in two key ranges and merged equal one fold of every page', async () => {
  const { VersionListingFold } = await import('../../src/record/version-listing.js')
  const { mergeUsage } = await import('../../src/record/usage-sums.js')
  const day = 86_400_000
  const nowMs = 400 * day
  type Entry = import('../../src/record/version-listing.js').VersionEntry
  const entries: Entry[] = []
  for (let key = 0; key < 60; key++) {
    const name = `k${String(key).padStart(3, '0')}`
    const history = key % 7 === 0 ? 9 : key % 11 === 0 ? 1 : 2
    for (let version = 0; version < history; version++) {
      const deleteMarker = (key % 5 === 0 && version === 0) || key % 13 === 0
      entries.push({
        key: name,
        versionId: `v${version}`,
        isLatest: version === 0,
        modifiedMs: nowMs - (version * 40 + key) * day,
        size: deleteMarker ? undefined : 1_000 * (key + 1) + version,
        storageClass: 'STANDARD',
      })
    }
  }
  const fold = (folded: InstanceType<typeof VersionListingFold>, list: Entry[], pageSize: number) => {
    for (let start = 0; start < list.length; start += pageSize) {
      const page = list.slice(start, start + pageSize)
      const more = start + pageSize < list.length
      folded.addPage(
        page.filter((entry) => entry.size !== undefined),
        page.filter((entry) => entry.size === undefined),
        more ? page.at(-1)?.key : undefined,
      )
    }
    return folded.finish()
  }
  const options = { storageClasses: true, nowMs }
  const whole = fold(new VersionListingFold(options), entries, 7)
  const boundary = 'k031'
  const parts = [
    fold(
      new VersionListingFold(options),
      entries.filter((entry) => entry.key <= boundary),
      5,
    ),
    fold(
      new VersionListingFold(options),
      entries.filter((entry) => entry.key > boundary),
      11,
    ),
  ]
  assert.ok((whole.versions?.noncurrentBytes ?? 0) > 0 && (whole.versions?.expiredDeleteMarkers ?? 0) > 0)
  assert.deepStrictEqual(mergeUsage(parts[0] as typeof whole, parts[1] as typeof whole), whole)
})
