/**
 * Regenerates test/fixtures/rgw/*.json: raw answers of the RGW admin API from a throwaway cluster
 * (test/support/rgw-cluster.ts) holding known objects, for the parsers' unit tests.
 * Run: npx tsx scripts/capture-rgw-fixtures.ts
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Sha256 } from '@smithy/core/checksum'
import { SignatureV4 } from '@smithy/signature-v4'
import { startRgwCluster } from '../test/support/rgw-cluster.js'
import { MiB, rgwS3Client, ScenarioWriter } from '../test/support/rgw-scenario.js'

const out = join(import.meta.dirname, '..', 'test', 'fixtures', 'rgw')
const cluster = await startRgwCluster()
try {
  const writer = new ScenarioWriter(rgwS3Client(cluster))
  // plain: 3 objects, 100 + 5,000 + 1 MiB bytes.
  await writer.createBucket('plain')
  await writer.put('plain', 'a', 100)
  await writer.put('plain', 'dir with space/ü.txt', 5000)
  await writer.put('plain', 'big', MiB)
  // versioned: x written twice (10 then 20 bytes), y (30 bytes) then deleted (a delete marker).
  await writer.createBucket('versioned', { versioned: true })
  await writer.put('versioned', 'x', 10)
  await writer.put('versioned', 'x', 20)
  await writer.put('versioned', 'y', 30)
  await writer.delete('versioned', 'y')
  // multipart: one upload left incomplete (parts of 5 MiB and 1,000 bytes), one completed (5 MiB + 2,000).
  await writer.createBucket('multipart')
  await writer.multipart('multipart', 'open', [5 * MiB, 1000], false)
  await writer.multipart('multipart', 'done', [5 * MiB, 2000], true)
  // empty, and quota (a 1 MiB / 10 objects quota, one object of 4,097 bytes).
  await writer.createBucket('empty')
  await writer.createBucket('quota')
  await writer.put('quota', 'one', 4097)
  await cluster.setBucketQuota('quota', { maxBytes: MiB, maxObjects: 10 })
  writer.s3.destroy()

  const keys = { accessKeyId: cluster.accessKeyId, secretAccessKey: cluster.secretAccessKey }
  const admin = async (query: Record<string, string>, credentials = keys) => {
    const url = new URL('/admin/bucket', cluster.endpoint)
    const signer = new SignatureV4({ service: 's3', region: cluster.region, credentials, sha256: Sha256 })
    const signed = await signer.sign({
      method: 'GET',
      protocol: 'http:',
      hostname: url.hostname,
      port: Number(url.port),
      path: url.pathname,
      query,
      headers: { host: url.host },
    })
    const response = await fetch(`${url}?${new URLSearchParams(query)}`, {
      headers: signed.headers as Record<string, string>,
    })
    return { status: response.status, body: await response.text() }
  }
  const save = async (name: string, body: string) => {
    await writeFile(join(out, name), `${JSON.stringify(JSON.parse(body), null, 2)}\n`)
    console.log('wrote', name)
  }
  await save('bucket-stats-all.json', (await admin({ stats: 'true', format: 'json' })).body)
  await save(
    'bucket-stats-one.json',
    (await admin({ bucket: 'versioned', stats: 'true', format: 'json' })).body,
  )
  const missing = await admin({ bucket: 'no-such-bucket', stats: 'true', format: 'json' })
  console.log('missing bucket:', missing.status)
  await save('error-no-such-bucket.json', missing.body)
  const paged = await admin({ stats: 'true', format: 'json', 'max-entries': '1' })
  console.log(
    'max-entries=1 answered',
    (JSON.parse(paged.body) as unknown[]).length,
    'buckets: no pagination',
  )
  // A user without admin caps.
  await cluster.createUser({ uid: 'nocaps', accessKeyId: 'NOCAPSKEY', secretAccessKey: 'NOCAPSSECRET' })
  const denied = await admin(
    { stats: 'true', format: 'json' },
    { accessKeyId: 'NOCAPSKEY', secretAccessKey: 'NOCAPSSECRET' },
  )
  console.log('no caps:', denied.status)
  await save('error-access-denied.json', denied.body)
} finally {
  await cluster.stop()
}
