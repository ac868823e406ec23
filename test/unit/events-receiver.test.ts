import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { after, before, test } from 'node:test'
import pino from 'pino'
import { loadConfig } from '../../src/config/load.js'
import { EventReceiver } from '../../src/events/receiver.js'
import { MAX_RECORDS_PER_DELIVERY, readRecords } from '../../src/events/s3-records.js'
import { CapturedOutput } from '../support/capture.js'
import { opensslSkipReason } from '../support/certificates.js'
import { refusalLines } from '../support/config-refusal.js'
import { scratchFolder } from '../support/scratch.js'
import { CERT_PATH, SNS_HOST, SnsService, TOPIC_ARN } from '../support/sns-service.js'

/**
 * Deliveries to POST /events read by the receiver: records as Ceph RGW sent them (captured), as
 * MinIO and AWS document them, SNS envelopes signed by a key the test made (SignatureVersion 1 and
 * 2), served with its certificate from a loopback stand-in for sns.us-east-1.amazonaws.com.
 */

const fixture = async (name: string) =>
  readFile(new URL(`../fixtures/s3-events/${name}`, import.meta.url), 'utf8')

function receiverOf(
  options: {
    scanned?: (bucket: string) => boolean
    measured?: (bucket: string) => boolean
    topics?: string[]
  } = {},
) {
  const changes: Array<[string, string]> = []
  const log = new CapturedOutput()
  const receiver = new EventReceiver({
    listener: { changed: (bucket, key) => changes.push([bucket, key]) },
    topicArns: options.topics ?? [TOPIC_ARN],
    ...(options.scanned ? { scanned: options.scanned } : {}),
    ...(options.measured ? { measured: options.measured } : {}),
    logger: pino({ level: 'info' }, log),
  })
  return { receiver, changes, log }
}

/** A record of the fields the receiver reads, each as given (a test may break any). */
const record = (eventName: unknown, bucket: unknown, key: unknown) => ({
  eventName,
  s3: { bucket: { name: bucket }, object: { key } },
})

const refused = (receiver: EventReceiver) =>
  Object.fromEntries([...receiver.counters.counts().refused].filter(([, count]) => count > 0))

test('Ceph RGW records (captured): put, versioned put, multipart completion, delete with its size, delete marker', async () => {
  const { receiver, changes } = receiverOf()
  const expected = [
    ['rgw-put.json', 'bkt-sync', 'a.txt', 'ObjectCreated:Put', 5],
    ['rgw-versioned_put.json', 'bkt-ver', 'v.txt', 'ObjectCreated:Put', 5],
    ['rgw-multipart.json', 'bkt-sync', 'mp.bin', 'ObjectCreated:CompleteMultipartUpload', 5243904],
    ['rgw-delete.json', 'bkt-sync', 'a.txt', 'ObjectRemoved:Delete', 11],
    ['rgw-deletemarker.json', 'bkt-ver', 'v.txt', 'ObjectRemoved:DeleteMarkerCreated', 5],
  ] as const
  for (const [file, bucket, key, eventName, size] of expected) {
    const read = readRecords(JSON.parse(await fixture(file)))
    assert.ok(typeof read !== 'string', file)
    assert.deepEqual(
      read.changes.map(({ sequencer: _s, ...change }) => change),
      [{ bucket, key, eventName, size }],
      file,
    )
    assert.match(read.changes[0]?.sequencer ?? '', /^[0-9A-F]{16}$/)
    assert.deepEqual(await receiver.receive(await fixture(file)), { status: 200, message: '1 of 1 applied' })
  }
  assert.deepEqual(
    changes,
    expected.map(([, bucket, key]) => [bucket, key]),
  )
  const counts = receiver.counters.counts()
  assert.equal(counts.received, 5)
  assert.equal(counts.applied, 5)
  assert.deepEqual(refused(receiver), {})
})

test('MinIO: the s3: prefix dropped, the key URL-decoded (+ is a space, %2B a plus)', async () => {
  const read = readRecords(JSON.parse(await fixture('minio-put.json')))
  assert.ok(typeof read !== 'string')
  assert.deepEqual(read.changes, [
    {
      bucket: 'photos',
      key: '2026/summer trip/beach+sun.jpg',
      eventName: 'ObjectCreated:Put',
      size: 2048,
      sequencer: '187E2B9E4C1A7F21',
    },
  ])
})

test('AWS: a delete carries no size; the key decoded from UTF-8 percent-escapes', async () => {
  const read = readRecords(JSON.parse(await fixture('aws-delete.json')))
  assert.ok(typeof read !== 'string')
  assert.deepEqual(read.changes, [
    {
      bucket: 'ledger',
      key: '2026/q4/reporté.csv',
      eventName: 'ObjectRemoved:Delete',
      sequencer: '0055AED6DCD90281E5',
    },
  ])
})

test('refusals: not JSON, no Records, broken records, reads, unscanned buckets, too many records', async () => {
  const { receiver, changes } = receiverOf({ scanned: (bucket) => bucket !== 'private' })
  assert.equal((await receiver.receive('{"Records": [')).status, 400)
  assert.equal((await receiver.receive('{"records": []}')).status, 400)
  assert.equal((await receiver.receive('[1, 2]')).status, 400)
  const mixed = {
    Records: [
      record('ObjectCreated:Put', 'photos', 'a'),
      record('s3:ObjectAccessed:Get', 'photos', 'b'),
      record('ObjectCreated:Put', 'private', 'c'),
      record('ObjectCreated:Put', '', 'd'),
      record('ObjectCreated:Put', 'photos', 'bad%escape'),
      record(42, 'photos', 'e'),
      'not a record',
    ],
  }
  assert.deepEqual(await receiver.receive(JSON.stringify(mixed)), { status: 200, message: '1 of 7 applied' })
  assert.deepEqual(changes, [['photos', 'a']])
  const tooMany = {
    Records: Array.from({ length: MAX_RECORDS_PER_DELIVERY + 1 }, () =>
      record('ObjectCreated:Put', 'photos', 'x'),
    ),
  }
  assert.equal((await receiver.receive(JSON.stringify(tooMany))).status, 413)
  const onlyBroken = { Records: [record('ObjectCreated:Put', 'photos', '')] }
  assert.equal((await receiver.receive(JSON.stringify(onlyBroken))).status, 400)
  // S3's test message when a configuration is saved: no record, not an error.
  assert.equal((await receiver.receive('{"Service":"Amazon S3","Event":"s3:TestEvent"}')).status, 200)
  assert.equal(changes.length, 1)
  assert.deepEqual(refused(receiver), {
    malformed: 3,
    invalid_record: 5,
    not_a_change: 1,
    not_scanned: 1,
    too_many_records: 1,
  })
  assert.equal(receiver.counters.counts().received, 8)
})

test('per bucket: only buckets measured now are counted by name; any other name only in the totals', async () => {
  const measuredNow = new Set(['photos', 'ledger'])
  const { receiver } = receiverOf({
    scanned: (bucket) => bucket !== 'private',
    measured: (bucket) => measuredNow.has(bucket),
  })
  // A sender with the token names as many buckets as it likes: none of them gets a series.
  const invented = Array.from({ length: 500 }, (_, index) =>
    record('ObjectCreated:Put', `made-up-${index}`, 'k'),
  )
  // photos: applied twice, a read, a key that does not decode; private: not scanned.
  const named = [
    ['ObjectCreated:Put', 'a'],
    ['ObjectRemoved:Delete', 'b'],
    ['s3:ObjectAccessed:Get', 'c'],
    ['ObjectCreated:Put', 'bad%escape'],
  ].map(([eventName, key]) => record(eventName, 'photos', key))
  const delivery = { Records: [...named, record('ObjectCreated:Put', 'private', 'd'), ...invented] }
  assert.equal((await receiver.receive(JSON.stringify(delivery))).status, 200)
  const counts = receiver.counters.counts()
  assert.equal(counts.received, 505)
  assert.equal(counts.applied, 502, 'the made-up buckets match the selection: applied, marking nothing')
  assert.deepEqual(
    [...counts.buckets.keys()],
    ['photos'],
    'ledger named by no record; the others not measured',
  )
  const photos = counts.buckets.get('photos')
  assert.deepEqual(
    {
      received: photos?.received,
      applied: photos?.applied,
      refused: Object.fromEntries(photos?.refused ?? []),
    },
    { received: 4, applied: 2, refused: { invalid_record: 1, not_a_change: 1 } },
  )
})

let sns: SnsService | undefined
let skip: string | undefined
before(async () => {
  skip = await opensslSkipReason()
  if (skip) return
  const dir = await scratchFolder({ after: (fn) => after(fn) }, 'objstore-sns-')
  sns = await SnsService.start(dir)
})
after(() => sns?.close())

test('SNS: a notification verified (SignatureVersion 1 and 2) hands on the S3 records it wraps', async (t) => {
  if (skip || !sns) return t.skip(skip)
  const { receiver, changes } = receiverOf()
  const document = await fixture('aws-delete.json')
  for (const version of ['1', '2'] as const) {
    const message = sns.message('Notification', document, { version, subject: 'Amazon S3 Notification' })
    assert.deepEqual(await receiver.receive(JSON.stringify(message)), {
      status: 200,
      message: '1 of 1 applied',
    })
  }
  assert.deepEqual(changes, [
    ['ledger', '2026/q4/reporté.csv'],
    ['ledger', '2026/q4/reporté.csv'],
  ])
  assert.equal(
    sns.requests.filter((path) => path === CERT_PATH).length,
    1,
    'the signing certificate fetched once, then kept',
  )
})

test('SNS: a tampered message, a wrong version, a foreign certificate host or an unknown topic is refused', async (t) => {
  if (skip || !sns) return t.skip(skip)
  const { receiver, changes, log } = receiverOf()
  const document = await fixture('aws-delete.json')
  const signed = sns.message('Notification', document)
  const tampered = { ...signed, Message: document.replace('ledger', 'payroll') }
  assert.equal((await receiver.receive(JSON.stringify(tampered))).status, 403)
  const otherVersion = { ...signed, SignatureVersion: '1' }
  assert.equal((await receiver.receive(JSON.stringify(otherVersion))).status, 403)
  for (const certUrl of [
    `http://${SNS_HOST}${CERT_PATH}`,
    `https://sns.us-east-1.amazonaws.com.evil.example${CERT_PATH}`,
    `https://127.0.0.1${CERT_PATH}`,
    `https://${SNS_HOST}:8443${CERT_PATH}`,
  ]) {
    const foreign = sns.message('Notification', document, { certUrl })
    assert.equal((await receiver.receive(JSON.stringify(foreign))).status, 502, certUrl)
  }
  const before = sns.requests.length
  const unknown = sns.message('Notification', document, {
    topicArn: 'arn:aws:sns:us-east-1:123456789012:other',
  })
  assert.equal((await receiver.receive(JSON.stringify(unknown))).status, 403)
  assert.equal(sns.requests.length, before, 'an unknown topic costs no request')
  assert.deepEqual(changes, [])
  assert.deepEqual(refused(receiver), { sns_signature: 2, sns_certificate: 4, sns_topic: 1 })
  assert.ok(
    log
      .jsonLines()
      .some((line) => line.msg === 'SNS message from a topic not in EVENTS_SNS_TOPIC_ARNS refused'),
  )
})

test('SNS: a subscription confirmation is confirmed (SubscribeURL fetched) only when verified and configured', async (t) => {
  if (skip || !sns) return t.skip(skip)
  const { receiver, log } = receiverOf()
  const confirmations = () =>
    sns?.requests.filter((path) => path.startsWith('/?Action=ConfirmSubscription')).length
  const before = confirmations()
  const other = sns.message('SubscriptionConfirmation', 'confirm', {
    topicArn: 'arn:aws:sns:us-east-1:123456789012:x',
  })
  assert.equal((await receiver.receive(JSON.stringify(other))).status, 403)
  const forged = { ...sns.message('SubscriptionConfirmation', 'confirm'), Token: 'another' }
  assert.equal((await receiver.receive(JSON.stringify(forged))).status, 403)
  assert.equal(confirmations(), before, 'neither was confirmed')
  const good = sns.message('SubscriptionConfirmation', 'You have chosen to subscribe')
  assert.deepEqual(await receiver.receive(JSON.stringify(good)), {
    status: 200,
    message: 'subscription confirmed',
  })
  assert.equal(confirmations(), (before ?? 0) + 1)
  assert.ok(
    log.jsonLines().some((line) => line.msg === 'SNS subscription confirmed' && line.topicArn === TOPIC_ARN),
  )
  sns.confirmationStatus = 403
  assert.equal((await receiver.receive(JSON.stringify(good))).status, 502)
  sns.confirmationStatus = 200
  assert.deepEqual(refused(receiver), { sns_topic: 1, sns_signature: 1, sns_confirmation: 1 })
})

test('settings: a short or unsafe token, a malformed topic ARN, a negative debounce stop start-up with one line each', () => {
  const lines = refusalLines(() =>
    loadConfig(
      {
        EVENTS_AUTH_TOKEN: 'short',
        EVENTS_SNS_TOPIC_ARNS: `${TOPIC_ARN},arn:aws:sqs:us-east-1:123456789012:queue`,
        EVENTS_DEBOUNCE_SECONDS: '-1',
      },
      { dotenvPath: false },
    ),
  )
  assert.equal(lines.length, 3, lines.join('\n'))
  assert.match(lines.find((line) => line.startsWith('EVENTS_AUTH_TOKEN')) ?? '', /16 to 256 characters/)
  assert.ok(!lines.join('\n').includes('short'), 'the token is not echoed')
  assert.match(lines.find((line) => line.startsWith('EVENTS_SNS_TOPIC_ARNS')) ?? '', /SNS topic ARNs/)
  assert.ok(lines.some((line) => line.startsWith('EVENTS_DEBOUNCE_SECONDS')))
  const config = loadConfig(
    {
      EVENTS_AUTH_TOKEN: 'a'.repeat(16),
      EVENTS_SNS_TOPIC_ARNS: `${TOPIC_ARN},arn:aws-cn:sns:cn-north-1:123456789012:t.fifo`,
    },
    { dotenvPath: false },
  )
  assert.equal(config.EVENTS_DEBOUNCE_SECONDS, 5)
})
