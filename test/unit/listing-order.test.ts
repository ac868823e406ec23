import assert from 'node:assert/strict'
import { test } from 'node:test'
import { UsageAccumulator } from '../../src/record/bucket-usage.js'
import { ListingSlots } from '../../src/sources/listings-in-flight.js'
import { compareKeys, pastRange } from '../../src/sources/s3/key-ranges.js'
import {
  IgnoredStarts,
  ObjectsOrder,
  probeIgnoresStart,
  StartIgnoredError,
  VersionsOrder,
  withoutMarkerKey,
} from '../../src/sources/s3/listing-order.js'
import type { ListedEntry, ListingPage } from '../../src/sources/s3/listing-xml.js'
import { listByRanges, type RangedListing } from '../../src/sources/s3/ranged-listing.js'

/** A ListingPage of current objects `keys`. */
function objects(...keys: string[]): ListingPage {
  return page({ contents: keys.map((key) => entry(key)) })
}

/** A ListingPage of versions given as `key@id` (`key@id*` for the latest). */
function versions(...entries: string[]): ListingPage {
  return page({
    versions: entries.map((text) => {
      const [key = '', id = ''] = text.replace('*', '').split('@')
      return entry(key, id, text.endsWith('*'))
    }),
  })
}

function entry(key: string, versionId?: string, isLatest?: boolean): ListedEntry {
  return { key, size: 1, modifiedMs: 0, storageClass: undefined, versionId, isLatest }
}

function page(parts: Partial<ListingPage>): ListingPage {
  return {
    truncated: true,
    keyCount: undefined,
    nextContinuationToken: undefined,
    nextKeyMarker: undefined,
    nextVersionIdMarker: undefined,
    contents: [],
    versions: [],
    deleteMarkers: [],
    commonPrefixes: [],
    lastVersionEntry: undefined,
    ...parts,
  }
}

test('objects: each page past the last key listed; a first page before StartAfter is StartAfter ignored', () => {
  const sequential = new ObjectsOrder('ListObjectsV2 b', undefined)
  sequential.check(objects('a', 'b'))
  sequential.check(objects())
  sequential.check(objects('c', 'd'))
  assert.throws(
    () => sequential.check(objects('d', 'e')),
    /^SourceError: ListObjectsV2 b: page 4 lists a key at or before one already listed: the store's listing does not advance/,
  )
  const part = new ObjectsOrder('ListObjectsV2 b', 'm')
  assert.throws(
    () => part.check(objects('a', 'n')),
    (error) => error instanceof StartIgnoredError && error.field === 'StartAfter',
  )
  const exact = new ObjectsOrder('ListObjectsV2 b', 'm')
  assert.throws(() => exact.check(objects('m')), StartIgnoredError, 'StartAfter itself is not after it')
  const honest = new ObjectsOrder('ListObjectsV2 b', 'm')
  honest.check(objects('n', 'o'))
  assert.throws(() => honest.check(objects('p', 'n')), /page 2 lists a key at or before/)
})

test('versions: a key goes on in the next page only with versions not listed, never its latest again', () => {
  const order = new VersionsOrder('ListObjectVersions b', undefined)
  order.check(versions('a@3*', 'a@2', 'b@9*', 'b@8'))
  order.check(versions('b@7', 'b@6', 'c@1*'))
  assert.throws(() => order.check(versions('c@1*')), /page 3 lists a key at or before/)
  const again = new VersionsOrder('ListObjectVersions b', undefined)
  again.check(versions('a@3*', 'a@2'))
  assert.throws(
    () => again.check(versions('a@2', 'a@1')),
    /page 2 lists a key at or before/,
    'a version again',
  )
  const latest = new VersionsOrder('ListObjectVersions b', undefined)
  latest.check(versions('a@3*', 'a@2'))
  assert.throws(() => latest.check(versions('a@3*')), /does not advance/, 'the latest again')
  const back = new VersionsOrder('ListObjectVersions b', undefined)
  back.check(versions('b@1*'))
  assert.throws(() => back.check(versions('a@1*')), /does not advance/, 'a key before')
  const part = new VersionsOrder('ListObjectVersions b', 'k')
  assert.throws(
    () => part.check(versions('k@2', 'l@1*')),
    (error) => error instanceof StartIgnoredError && error.field === 'KeyMarker',
  )
  const honest = new VersionsOrder('ListObjectVersions b', 'k')
  honest.check(versions('l@1*', 'm@5*'))
  honest.check(versions('m@4'))
})

/** The keys@ids of what `withoutMarkerKey` hands on from `listed`, checked by a VersionsOrder after `marker`. */
async function afterMarker(marker: string | undefined, ...listed: ListingPage[]): Promise<string[][]> {
  async function* answered() {
    yield* listed
  }
  const order = new VersionsOrder('ListObjectVersions b', marker)
  const handed: string[][] = []
  for await (const page of withoutMarkerKey(answered(), marker)) {
    order.check(page)
    handed.push([...page.versions, ...page.deleteMarkers].map((one) => `${one.key}@${one.versionId}`))
  }
  return handed
}

test('versions after a KeyMarker: the entries of the marker key at the head (Ceph RGW) are left out, nothing else', async () => {
  // RGW answers KeyMarker=k with k's versions first, over pages when it has many.
  assert.deepEqual(
    await afterMarker('k', versions('k@3*', 'k@2'), versions('k@1', 'l@1*'), versions('m@1*')),
    [[], ['l@1'], ['m@1']],
  )
  const markers = page({ versions: [entry('l', '1', true)], deleteMarkers: [entry('k', '9', true)] })
  assert.deepEqual(await afterMarker('k', markers), [['l@1']], 'a delete marker of the key too')
  // S3's own answer is untouched, and so is a listing from the start.
  assert.deepEqual(await afterMarker('k', versions('l@1*')), [['l@1']])
  assert.deepEqual(await afterMarker(undefined, versions('k@1*', 'l@1*')), [['k@1', 'l@1']])
  // A key before the marker is still a KeyMarker ignored; the marker's key after another, going back.
  await assert.rejects(
    afterMarker('k', versions('j@1*', 'k@1*')),
    (error) => error instanceof StartIgnoredError && error.field === 'KeyMarker',
  )
  await assert.rejects(
    afterMarker('k', versions('l@1*'), versions('k@1*')),
    /page 2 lists a key at or before/,
  )
})

test('probes: keys and common prefixes before StartAfter show it ignored; a prefix of it does not', () => {
  const request = { prefix: '', startAfter: 'd05/o100', delimiter: '/' as const, maxKeys: 1000 }
  const answer = (keys: string[], prefixes: string[]) => ({ keys, prefixes, truncated: false })
  assert.equal(probeIgnoresStart(request, answer(['e'], ['d05/', 'd06/'])), false)
  assert.equal(probeIgnoresStart(request, answer([], ['d00/', 'd06/'])), true)
  assert.equal(probeIgnoresStart(request, answer(['d05/o100'], [])), true)
  assert.equal(probeIgnoresStart({ ...request, startAfter: '' }, answer(['a'], ['a/'])), false)
})

test('what a store ignores is remembered: no split for either listing after StartAfter, for versions after KeyMarker', () => {
  const keyMarker = new IgnoredStarts()
  assert.equal(keyMarker.add('KeyMarker'), true)
  assert.equal(keyMarker.add('KeyMarker'), false, 'once')
  assert.deepEqual(
    [keyMarker.allowSplit('ListObjectsV2'), keyMarker.allowSplit('ListObjectVersions')],
    [true, false],
  )
  const startAfter = new IgnoredStarts()
  startAfter.add('StartAfter')
  assert.deepEqual(
    [startAfter.allowSplit('ListObjectsV2'), startAfter.allowSplit('ListObjectVersions')],
    [false, false],
  )
})

test('a part whose store ignored its start: the parts dropped, the bucket listed again as one, exactly', async () => {
  const keys = Array.from({ length: 5_000 }, (_, index) => `k-${String(index).padStart(6, '0')}`)
  const starts: Array<string | undefined> = []
  const told: StartIgnoredError[] = []
  const slots = new ListingSlots(4)
  const release = await slots.acquire()
  const listing: RangedListing<ListingPage, UsageAccumulator> = {
    signal: new AbortController().signal,
    slots,
    split: { maxRanges: 4, maxProbes: 16, afterPages: 2 },
    newFold: () => new UsageAccumulator({ storageClasses: true, nowMs: 0 }),
    async *pages(range) {
      starts.push(range.after)
      // The store starts every listing at the first key, whatever StartAfter says.
      const order = new ObjectsOrder('ListObjectsV2 b', range.after)
      for (let index = 0; index < keys.length; index += 100) {
        await new Promise((resolve) => setImmediate(resolve))
        const listed = objects(...keys.slice(index, index + 100))
        order.check(listed)
        yield { ...listed, truncated: index + 100 < keys.length }
      }
    },
    foldPage(fold, listed, range) {
      for (const object of listed.contents) {
        if (pastRange(object.key ?? '', range)) return false
        fold.add({ size: 1, modifiedMs: 0, storageClass: 'STANDARD' })
      }
      return true
    },
    continuesAfter: (listed) => (listed.truncated ? listed.contents.at(-1)?.key : undefined),
    finish: (fold) => fold.finish(),
    // An honest probe, so that the plan is made and the parts start.
    probe: async (request) => {
      const after = keys.filter((key) => compareKeys(key, request.startAfter) > 0)
      return {
        keys: after.slice(0, request.maxKeys),
        prefixes: [],
        truncated: after.length > request.maxKeys,
      }
    },
    onStartIgnored: (error) => told.push(error),
  }
  const usage = await listByRanges(listing)
  release()
  assert.equal(usage.objects, 5_000)
  assert.equal(usage.bytes, 5_000)
  assert.ok(starts.filter((start) => start !== undefined).length > 0, 'parts were started')
  assert.equal(starts.at(-1), undefined, 'then one listing from the start')
  assert.equal(told.length, 1)
  assert.equal(slots.spare, 4)
})
