import assert from 'node:assert/strict'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { loadConfiguration } from '../../src/config/load.js'
import { refusalLines } from '../support/config-refusal.js'
import { scratchFolder } from '../support/scratch.js'

const load = (env: Record<string, string>) => loadConfiguration(env, { dotenvPath: false })
const S3 = { BUCKETS_SOURCE: 's3', S3_ENDPOINT: 'http://user:pw@store.example:9000' }
const EMPTY_ENDPOINT =
  "S3_ENDPOINT: set but empty; with BUCKETS_SOURCE=s3 that would mean AWS S3 (and send the access key id there): set the store's URL, or remove the variable to use AWS S3"

test('DRIVES empty: DATA_DIR for fs, none for s3 and rgw; set, it is used by every source', () => {
  assert.deepEqual(load({ DATA_DIR: '/srv/data' }).config.DRIVES, ['/srv/data'])
  assert.deepEqual(load(S3).config.DRIVES, [])
  assert.deepEqual(load({ ...S3, BUCKETS_SOURCE: 'rgw' }).config.DRIVES, [])
  assert.deepEqual(load({ ...S3, DRIVES: '/mnt/d{1...2}' }).config.DRIVES, ['/mnt/d1', '/mnt/d2'])
})

test('S3_ENDPOINT empty is refused for s3, from the environment or .env; unset means AWS S3', async (t) => {
  assert.deepEqual(
    refusalLines(() => load({ BUCKETS_SOURCE: 's3', S3_ENDPOINT: '  ' })),
    [EMPTY_ENDPOINT],
  )
  const folder = await scratchFolder(t)
  const dotenv = join(folder, '.env')
  await writeFile(dotenv, 'BUCKETS_SOURCE=s3\nS3_ENDPOINT=\n')
  assert.deepEqual(
    refusalLines(() => loadConfiguration({}, { dotenvPath: dotenv })),
    [EMPTY_ENDPOINT],
  )
  // Set in .env, left empty in the environment: the file's value stands (empty means unset there).
  await writeFile(dotenv, 'BUCKETS_SOURCE=s3\nS3_ENDPOINT=http://store:9000\n')
  assert.equal(
    loadConfiguration({ S3_ENDPOINT: '' }, { dotenvPath: dotenv }).config.S3_ENDPOINT,
    'http://store:9000',
  )
  assert.equal(load({ BUCKETS_SOURCE: 's3' }).summary.endpoint, 'AWS S3 (region us-east-1)')
  // fs reads no S3_ENDPOINT: empty there is unset, as for any variable.
  assert.equal(load({ S3_ENDPOINT: '' }).config.BUCKETS_SOURCE, 'fs')
})

test('the start-up summary: source, endpoint without credentials, selection, interval, drives', () => {
  assert.deepEqual(load({ ...S3, BUCKETS: 'a,b', SHARD: '0/2', SCAN_INTERVAL_SECONDS: '60' }).summary, {
    source: 's3',
    endpoint: 'http://[redacted]@store.example:9000/',
    buckets: 'BUCKETS=a,b; SHARD=0/2',
    scanIntervalSeconds: 60,
    drives: [],
  })
  assert.equal(
    load({ ...S3, BUCKETS_SOURCE: 'rgw', RGW_ADMIN_PATH: '/ops/admin' }).summary.endpoint,
    'http://[redacted]@store.example:9000/ops/admin',
  )
})

test("variables of a source other than the chosen one are named for a warning, the chosen one's are not", () => {
  assert.deepEqual(load({ S3_REGION: 'eu-west-1', RGW_ADMIN_PATH: 'admin' }).otherSourceVariables, [
    'RGW_ADMIN_PATH',
    'S3_REGION',
  ])
  assert.deepEqual(load({ ...S3, S3_CA_FILE: '/ca.pem', SCAN_VERSIONS: 'true' }).otherSourceVariables, [])
  assert.deepEqual(
    load({ ...S3, BUCKETS_SOURCE: 'rgw', S3_CA_FILE: '/ca.pem', S3_FORCE_PATH_STYLE: 'true' })
      .otherSourceVariables,
    ['S3_CA_FILE', 'S3_FORCE_PATH_STYLE'],
  )
})

test('an empty near-miss of a store-choosing variable is refused while the variable itself is unset', () => {
  assert.deepEqual(
    refusalLines(() => load({ BUCKETS_SOURCE: 's3', S3_ENDPOINT_URL: '' })),
    [
      'S3_ENDPOINT_URL: set but empty, and not a variable of objstore-exporter; did you mean S3_ENDPOINT? It chooses which store is read, so it is never ignored: rename or remove it',
    ],
  )
  assert.equal(load({ ...S3, S3_ENDPOINT_URL: '' }).config.S3_ENDPOINT, S3.S3_ENDPOINT)
})
