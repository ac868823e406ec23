import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { test } from 'node:test'
import {
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  ListObjectVersionsCommand,
  type ListObjectVersionsCommandOutput,
  S3Client,
} from '@aws-sdk/client-s3'
import { HttpResponse } from '@smithy/core/protocols'
import { nextVersionIdMarker } from '../../src/sources/s3/bucket-listing.js'
import { listObjectsV2, listObjectVersions } from '../../src/sources/s3/listing-requests.js'
import {
  type ListingKind,
  type ListingPage,
  ListingXmlError,
  parseListing,
} from '../../src/sources/s3/listing-xml.js'

/**
 * The listing reader (listing-xml.ts) against the SDK's own deserialiser as the oracle: one S3
 * client whose request handler answers every request with the same canned body, sent once as the
 * SDK's command and once through listing-requests.ts; both readings must be the same page.
 */

const NS = 'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"'

let answer: { status: number; body: string; headers?: Record<string, string> } = { status: 200, body: '' }

const client = new S3Client({
  region: 'us-east-1',
  endpoint: 'http://127.0.0.1:9',
  forcePathStyle: true,
  credentials: { accessKeyId: 'test', secretAccessKey: 'test-secret' },
  maxAttempts: 1,
  requestHandler: {
    handle: async () => ({
      response: new HttpResponse({
        statusCode: answer.status,
        headers: { 'content-type': 'application/xml', 'x-amz-request-id': 'R1', ...answer.headers },
        body: Readable.from([Buffer.from(answer.body, 'utf8')]),
      }),
    }),
  },
})
const signal = new AbortController().signal

type Entry = ListingPage['contents'][number]
type SdkEntry = {
  Key?: string | undefined
  Size?: number | undefined
  LastModified?: Date | undefined
  StorageClass?: string | undefined
  VersionId?: string | undefined
  IsLatest?: boolean | undefined
}

function entryOf(sdk: SdkEntry): Entry {
  return {
    key: sdk.Key,
    size: sdk.Size,
    modifiedMs: sdk.LastModified?.getTime(),
    storageClass: sdk.StorageClass,
    versionId: sdk.VersionId,
    isLatest: sdk.IsLatest,
  }
}

/** The SDK's reading of `body`, in the reader's shape. */
/** What the SDK can read: not which version entry came last (it keeps versions and markers apart). */
type SdkPage = Omit<ListingPage, 'lastVersionEntry'>

async function sdkReading(kind: ListingKind, body: string): Promise<SdkPage> {
  answer = { status: 200, body }
  if (kind === 'ListObjectsV2') {
    const out: ListObjectsV2CommandOutput = await client.send(new ListObjectsV2Command({ Bucket: 'bkt' }))
    return {
      truncated: out.IsTruncated,
      keyCount: out.KeyCount,
      nextContinuationToken: out.NextContinuationToken,
      nextKeyMarker: undefined,
      nextVersionIdMarker: undefined,
      contents: (out.Contents ?? []).map(entryOf),
      versions: [],
      deleteMarkers: [],
      commonPrefixes: (out.CommonPrefixes ?? []).flatMap((c) => (c.Prefix === undefined ? [] : [c.Prefix])),
    }
  }
  const out: ListObjectVersionsCommandOutput = await client.send(
    new ListObjectVersionsCommand({ Bucket: 'bkt' }),
  )
  return {
    truncated: out.IsTruncated,
    keyCount: undefined,
    nextContinuationToken: undefined,
    nextKeyMarker: out.NextKeyMarker,
    nextVersionIdMarker: out.NextVersionIdMarker,
    contents: [],
    versions: (out.Versions ?? []).map(entryOf),
    deleteMarkers: (out.DeleteMarkers ?? []).map(entryOf),
    commonPrefixes: (out.CommonPrefixes ?? []).flatMap((c) => (c.Prefix === undefined ? [] : [c.Prefix])),
  }
}

/** The reader's page of `body` through the SDK client (listing-requests.ts), without $metadata. */
async function ourReading(kind: ListingKind, body: string): Promise<ListingPage> {
  answer = { status: 200, body }
  const page =
    kind === 'ListObjectsV2'
      ? await listObjectsV2(client, { Bucket: 'bkt' }, signal)
      : await listObjectVersions(client, { Bucket: 'bkt' }, signal)
  const { $metadata, ...rest } = page as ListingPage & { $metadata: { httpStatusCode: number } }
  assert.equal($metadata.httpStatusCode, 200)
  return rest
}

async function assertSameAsSdk(kind: ListingKind, body: string, message: string): Promise<ListingPage> {
  const expected = await sdkReading(kind, body)
  const actual = await ourReading(kind, body)
  const { lastVersionEntry, ...readable } = actual
  assert.deepStrictEqual(readable, expected, message)
  const { lastVersionEntry: alone, ...parsed } = parseListing(kind, body)
  assert.deepStrictEqual(parsed, expected, `${message}: parseListing alone`)
  assert.deepStrictEqual(alone, lastVersionEntry)
  return actual
}

const objectXml = (key: string, size: string, modified: string, storageClass?: string, extra = '') =>
  `<Contents><Key>${key}</Key><LastModified>${modified}</LastModified><ETag>&quot;9b2cf535f27731c974343645a3985328&quot;</ETag>${extra}<Size>${size}</Size>${storageClass === undefined ? '' : `<StorageClass>${storageClass}</StorageClass>`}</Contents>`

const listV2 = (inner: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult ${NS}>${inner}</ListBucketResult>`
const listVersions = (inner: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<ListVersionsResult ${NS}>${inner}</ListVersionsResult>`

/** A page as AWS writes it: `count` keys, an Owner, checksums, alternating storage classes. */
function awsPage(count: number, truncated: boolean): string {
  let inner = `<Name>bkt</Name><Prefix></Prefix><KeyCount>${count}</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>${truncated}</IsTruncated>`
  for (let index = 0; index < count; index++) {
    const modified = new Date(Date.UTC(2026, 0, 1) - index * 1001).toISOString()
    inner += objectXml(
      `tenant-${index % 7}/day-${index % 31}/obj-${String(index).padStart(9, '0')}`,
      String((index * 7919) % 10_000_000),
      modified,
      index % 10 === 0 ? 'STANDARD_IA' : 'STANDARD',
      '<ChecksumAlgorithm>CRC64NVME</ChecksumAlgorithm><ChecksumType>FULL_OBJECT</ChecksumType><Owner><ID>abc</ID><DisplayName>me</DisplayName></Owner>',
    )
  }
  if (truncated)
    inner += '<NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>'
  return listV2(inner)
}

test('a page as AWS writes it (1,000 keys, truncated) and a last one: read as the SDK reads them', async () => {
  const page = await assertSameAsSdk('ListObjectsV2', awsPage(1000, true), 'a full page')
  assert.equal(page.contents.length, 1000)
  assert.equal(page.truncated, true)
  assert.equal(page.nextContinuationToken, '1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=')
  await assertSameAsSdk('ListObjectsV2', awsPage(3, false), 'the last page')
  await assertSameAsSdk('ListObjectsV2', awsPage(5000, true), 'a page larger than S3 sends')
})

test('keys with entities, CDATA, unicode, whitespace and markup in between: as the SDK decodes them', async () => {
  const keys = [
    'a&amp;b',
    '&lt;tag&gt; &quot;quoted&quot; &apos;s',
    '&#38;&#x26;&#X;&#169;&#xE9;',
    'ключ/日本語/😀.txt',
    '<![CDATA[raw <not> &amp; a tag]]>',
    'ends with ]]&gt; here',
    'half<![CDATA[ cdata ]]>half',
    '  leading and trailing  ',
    '\n   \n',
    ' \t ',
    'line&#10;break',
    'a<!-- a comment -->b',
    'a<?pi ignored?>b',
    'bare & ampersand',
    'unknown &nbsp; entity',
    '',
  ]
  const body = listV2(
    `<IsTruncated>false</IsTruncated>${keys.map((key, index) => objectXml(key, String(index), '2026-01-02T03:04:05.678Z')).join('')}`,
  )
  const page = await assertSameAsSdk('ListObjectsV2', body, 'nasty keys')
  assert.deepEqual(
    page.contents.slice(0, 8).map((entry) => entry.key),
    [
      'a&b',
      '<tag> "quoted" \'s',
      '&&&#X;©é',
      'ключ/日本語/😀.txt',
      'raw <not> &amp; a tag',
      'ends with ]]> here',
      'half cdata half',
      '  leading and trailing  ',
    ],
  )
  assert.equal(page.contents[8]?.key, '', 'whitespace across lines reads as empty')
  assert.equal(page.contents[9]?.key, ' \t ', 'whitespace on one line is kept')
})

test('pretty-printed answers, attributes, comments, a DOCTYPE and unknown elements: as the SDK reads them', async () => {
  const body = `<?xml version="1.0" encoding="UTF-8"?>
<!-- a comment before the root -->
<!DOCTYPE ListBucketResult [ <!ENTITY x "y"> ]>
<ListBucketResult ${NS} extra='single &quot;quoted&quot; > value'>
  <Name>bkt</Name>
  <IsTruncated>
    true
  </IsTruncated>
  <KeyCount>2</KeyCount>
  <Unknown><Deep><Deeper a="1">text</Deeper><Empty/></Deep></Unknown>
  <Contents>
    <Key>indented</Key>
    <LastModified>2026-01-02T03:04:05Z</LastModified>
    <Size>12</Size>
    <RestoreStatus><IsRestoreInProgress>false</IsRestoreInProgress></RestoreStatus>
    <StorageClass>GLACIER</StorageClass>
  </Contents>
  <Contents><Key attr="x">with attribute</Key><Size/><LastModified>2026-01-02T03:04:05.1+02:00</LastModified></Contents>
  <Contents/>
  <CommonPrefixes><Prefix>photos/</Prefix></CommonPrefixes>
  <CommonPrefixes><Prefix>videos/</Prefix></CommonPrefixes>
  <NextContinuationToken>next token</NextContinuationToken>
</ListBucketResult>
`
  const page = await assertSameAsSdk('ListObjectsV2', body, 'pretty-printed')
  assert.equal(page.truncated, false, '"\\n    true\\n  " is not "true" to the SDK either')
  assert.deepEqual(page.commonPrefixes, ['photos/', 'videos/'])
})

test('times, sizes and booleans in every form the SDK accepts: the same figures', async () => {
  const times = [
    '2026-01-02T03:04:05.678Z',
    '2026-01-02T03:04:05Z',
    '2026-01-02t03:04:05.6z',
    '2026-01-02T03:04:05.123456789Z',
    '2026-01-02T03:04:05.999999Z',
    '2026-01-02T03:04:05.000+05:30',
    '2026-01-02T03:04:05-08:00',
    '2026-02-31T23:59:60.000Z',
    '2024-02-29T00:00:00.000Z',
    '0099-12-31T23:59:59.000Z',
    '1969-07-20T20:17:40.000Z',
  ]
  const sizes = ['0', '5368709120000', ' 12 ', '', '007', 'abc', '1e3', '-1', '9007199254740993']
  let inner = '<IsTruncated>FALSE</IsTruncated><KeyCount>not a number</KeyCount>'
  times.forEach((time, index) => {
    inner += objectXml(`t${index}`, '1', time)
  })
  sizes.forEach((size, index) => {
    inner += objectXml(`s${index}`, size, '2026-01-02T03:04:05.678Z', 'INTELLIGENT_TIERING')
  })
  const page = await assertSameAsSdk('ListObjectsV2', listV2(inner), 'times and sizes')
  assert.equal(page.contents[0]?.modifiedMs, Date.UTC(2026, 0, 2, 3, 4, 5, 678))
  assert.equal(page.contents[5]?.modifiedMs, Date.UTC(2026, 0, 1, 21, 34, 5), 'an offset applied')
})

test('versions and delete markers, truncated between versions of one key: read as the SDK reads them', async () => {
  const version = (key: string, id: string, latest: string, size: string, extra = '') =>
    `<Version><Key>${key}</Key><VersionId>${id}</VersionId><IsLatest>${latest}</IsLatest><LastModified>2026-01-02T03:04:05.000Z</LastModified><ETag>"e"</ETag><Size>${size}</Size>${extra}<StorageClass>STANDARD</StorageClass><Owner><ID>o</ID></Owner></Version>`
  const marker = (key: string, id: string, latest: string) =>
    `<DeleteMarker><Owner><ID>o</ID></Owner><Key>${key}</Key><VersionId>${id}</VersionId><IsLatest>${latest}</IsLatest><LastModified>2026-01-03T00:00:00.000Z</LastModified></DeleteMarker>`
  const body = listVersions(
    `<Name>bkt</Name><Prefix></Prefix><KeyMarker></KeyMarker><VersionIdMarker></VersionIdMarker><NextKeyMarker>b&amp;c</NextKeyMarker><NextVersionIdMarker>v 2</NextVersionIdMarker><MaxKeys>5</MaxKeys><IsTruncated>True</IsTruncated>` +
      version('a', 'null', 'true', '10') +
      marker('b&amp;c', 'dm1', 'true') +
      version('b&amp;c', 'v3', 'false', '20', '<ChecksumAlgorithm>CRC32</ChecksumAlgorithm>') +
      marker('b&amp;c', 'dm0', 'false') +
      version('b&amp;c', 'v 2', 'false', '30') +
      '<CommonPrefixes><Prefix>p/</Prefix></CommonPrefixes>',
  )
  const page = await assertSameAsSdk('ListObjectVersions', body, 'versions')
  assert.equal(page.versions.length, 3)
  assert.equal(page.deleteMarkers.length, 2)
  assert.equal(page.truncated, true)
  assert.equal(page.nextKeyMarker, 'b&c')
  assert.equal(page.lastVersionEntry?.versionId, 'v 2', 'the last entry in answer order')
  assert.equal(nextVersionIdMarker(page), 'v 2')
  const endsWithMarker = parseListing(
    'ListObjectVersions',
    body.replace('</ListVersionsResult>', `${marker('d', 'dm9', 'true')}</ListVersionsResult>`),
  )
  assert.deepEqual(
    [endsWithMarker.lastVersionEntry?.key, endsWithMarker.lastVersionEntry?.versionId],
    ['d', 'dm9'],
  )
  // What one operation's schema lacks is not read from the other's answer.
  await assertSameAsSdk('ListObjectsV2', body, 'a versions answer read as ListObjectsV2')
  await assertSameAsSdk('ListObjectVersions', awsPage(3, true), 'a ListObjectsV2 answer read as versions')
})

test("Swift's s3api names the null version as NextVersionIdMarker: the next page starts after the last entry listed", () => {
  // As OpenStack Swift 2.30 answers a versioned bucket's truncated page (captured, shortened).
  const version = (key: string, id: string) =>
    `<Version><Key>${key}</Key><VersionId>${id}</VersionId><IsLatest>true</IsLatest><LastModified>2026-12-04T16:52:40.000Z</LastModified><ETag>"e"</ETag><Size>10</Size><StorageClass>STANDARD</StorageClass></Version>`
  const page = (next: string, last: string) =>
    parseListing(
      'ListObjectVersions',
      listVersions(
        `<Name>vers</Name><Prefix></Prefix><KeyMarker></KeyMarker><VersionIdMarker></VersionIdMarker><NextKeyMarker>k008</NextKeyMarker><NextVersionIdMarker>${next}</NextVersionIdMarker><MaxKeys>2</MaxKeys><IsTruncated>true</IsTruncated>` +
          version('k007', '1796403897.27008') +
          version('k008', last),
      ),
    )
  assert.equal(nextVersionIdMarker(page('null', '1796403899.08656')), '1796403899.08656')
  // A store that names the entry it listed last, or a null version it did list last: as named.
  assert.equal(nextVersionIdMarker(page('1796403899.08656', '1796403899.08656')), '1796403899.08656')
  assert.equal(nextVersionIdMarker(page('null', 'null')), 'null')
})

test('empty pages, an empty body, another document: as the SDK reads them (no listing where it has none)', async () => {
  for (const [body, what] of [
    [listV2('<IsTruncated>false</IsTruncated><KeyCount>0</KeyCount>'), 'an empty bucket'],
    [`<ListBucketResult ${NS}/>`, 'a self-closing root'],
    ['', 'an empty body'],
    ['<html><body><h1>502 Bad Gateway</h1></body></html>', 'an HTML page'],
    ['<?xml version="1.0"?><Other><KeyCount>1</KeyCount></Other>', 'another document'],
  ] as const) {
    const page = await assertSameAsSdk('ListObjectsV2', body, what)
    assert.equal(page.contents.length, 0, what)
  }
  assert.equal(parseListing('ListObjectsV2', '').truncated, undefined, 'no listing: pages() refuses it')
})

test('answers that are not well-formed fail, where the SDK fails too', async () => {
  const good = awsPage(4, true)
  const cases: [string, string][] = [
    [good.slice(0, Math.floor(good.length / 2)), 'cut in the middle'],
    [good.slice(0, good.lastIndexOf('<')), 'without its closing tag'],
    [listV2(objectXml('a', '1', '2026-01-02T03:04:05.000Z').replace('</Key>', '</Kex>')), 'mismatched tags'],
    [listV2('<Contents><Key><b>c</b></Key></Contents>'), 'an element for a value'],
    [listV2('<Contents><Key>a</Key><Key>b</Key></Contents>'), 'a key given twice'],
    [listV2('<IsTruncated>true</IsTruncated><IsTruncated>false</IsTruncated>'), 'IsTruncated twice'],
    [listV2(objectXml('a', '1', 'yesterday')), 'a time that is not RFC 3339'],
    [listV2(objectXml('a', '1', '2026-13-01T00:00:00Z')), 'month 13'],
    [listV2(objectXml('a', '1', ' 2026-01-02T03:04:05Z')), 'a time with a space'],
    [listV2('<Contents><Key>a</Key><!-- unclosed </Contents>'), 'an unclosed comment'],
    [listV2('<Contents><Key>a</Key><![CDATA[ unclosed </Contents>'), 'an unclosed CDATA section'],
    ['some text', 'text without a root element'],
    ['   \n  ', 'only whitespace'],
  ]
  for (const [body, what] of cases) {
    await assert.rejects(sdkReading('ListObjectsV2', body), `the SDK fails on ${what}`)
    await assert.rejects(ourReading('ListObjectsV2', body), ListingXmlError, `the reader fails on ${what}`)
  }
})

test('where the reader differs from the SDK: references past U+FFFF, a byte order mark, markup in a value', () => {
  const page = parseListing(
    'ListObjectsV2',
    listV2(objectXml('&#x1F600;&#128512;', '1', '2026-01-02T03:04:05Z')),
  )
  assert.equal(page.contents[0]?.key, '😀😀', 'the character itself (the SDK keeps its low 16 bits)')
  const withBom = parseListing('ListObjectsV2', `\uFEFF${listV2('<IsTruncated>false</IsTruncated>')}`)
  assert.equal(withBom.truncated, false, 'a byte order mark is allowed (the SDK refuses it)')
  assert.throws(
    () => parseListing('ListObjectsV2', listV2('<Contents><Key>&#x110000;</Key></Contents>')),
    ListingXmlError,
  )
  const inValue = listV2('<Contents><Key>a<b>c</b></Key></Contents>')
  assert.throws(
    () => parseListing('ListObjectsV2', inValue),
    /an element inside <Key>/,
    'the SDK reads the key "a"',
  )
  const unquoted = listV2('<Contents attr=unquoted><Key>a</Key></Contents>')
  assert.throws(
    () => parseListing('ListObjectsV2', unquoted),
    /without quotes/,
    'the SDK takes any character for a quote',
  )
  const deep = `${'<a>'.repeat(100)}${'</a>'.repeat(100)}`
  assert.throws(() => parseListing('ListObjectsV2', listV2(deep)), /nested deeper than 64/)
})

test('error answers go to the SDK: the same error names, status and messages as the SDK command', async () => {
  const errorXml = (code: string) =>
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>m ${code}</Message><RequestId>R1</RequestId></Error>`
  for (const [status, code] of [
    [404, 'NoSuchBucket'],
    [403, 'AccessDenied'],
    [503, 'SlowDown'],
    [500, 'InternalError'],
    [200, 'InternalError'],
  ] as const) {
    answer = { status, body: errorXml(code) }
    const sdk = await client.send(new ListObjectsV2Command({ Bucket: 'bkt' })).then(
      () => assert.fail('the SDK read an error answer as a listing'),
      (error: Error & { $metadata?: { httpStatusCode?: number } }) => error,
    )
    answer = { status, body: errorXml(code) }
    const ours = await listObjectsV2(client, { Bucket: 'bkt' }, signal).then(
      () => assert.fail('the reader read an error answer as a listing'),
      (error: Error & { $metadata?: { httpStatusCode?: number } }) => error,
    )
    assert.equal(ours.name, sdk.name, `${status} ${code}`)
    assert.equal(ours.name, code)
    assert.equal(ours.message, sdk.message)
    assert.equal(ours.$metadata?.httpStatusCode, sdk.$metadata?.httpStatusCode)
    assert.equal(ours.constructor, sdk.constructor)
  }
})
