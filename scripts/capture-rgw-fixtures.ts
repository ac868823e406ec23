/**
 * Regenerates test/fixtures/rgw/*.json: raw answers of the RGW admin API from a throwaway cluster
 * (test/support/rgw-cluster.ts) holding known objects, for the parser's unit tests.
 * Run: npx tsx scripts/capture-rgw-fixtures.ts
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3'
import { Sha256 } from '@smithy/core/checksum'
import { SignatureV4 } from '@smithy/signature-v4'
import { startRgwCluster } from '../test/support/rgw-cluster.js'

const out = join(import.meta.dirname, '..', 'test', 'fixtures', 'rgw')
const MiB = 1024 * 1024
const cluster = await startRgwCluster()
try {
  const credentials = { accessKeyId: cluster.accessKeyId, secretAccessKey: cluster.secretAccessKey }
  const s3 = new S3Client({
    endpoint: cluster.endpoint,
    region: cluster.region,
    forcePathStyle: true,
    credentials,
  })
  const put = (Bucket: string, Key: string, size: number) =>
    s3.send(new PutObjectCommand({ Bucket, Key, Body: Buffer.alloc(size, 7) }))

  // plain: 3 objects, 100 + 5,000 + 1 MiB bytes.
  await s3.send(new CreateBucketCommand({ Bucket: 'plain' }))
  await put('plain', 'a', 100)
  await put('plain', 'dir with space/ü.txt', 5000)
  await put('plain', 'big', MiB)
  // versioned: x written twice (10 then 20 bytes), y (30 bytes) then deleted (a delete marker).
  await s3.send(new CreateBucketCommand({ Bucket: 'versioned' }))
  await s3.send(
    new PutBucketVersioningCommand({ Bucket: 'versioned', VersioningConfiguration: { Status: 'Enabled' } }),
  )
  await put('versioned', 'x', 10)
  await put('versioned', 'x', 20)
  await put('versioned', 'y', 30)
  await s3.send(new DeleteObjectCommand({ Bucket: 'versioned', Key: 'y' }))
  // multipart: one upload left incomplete (parts of 5 MiB and 1,000 bytes), one completed (5 MiB + 2,000).
  await s3.send(new CreateBucketCommand({ Bucket: 'multipart' }))
  const open = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'multipart', Key: 'open' }))
  for (const [PartNumber, size] of [
    [1, 5 * MiB],
    [2, 1000],
  ] as const) {
    await s3.send(
      new UploadPartCommand({
        Bucket: 'multipart',
        Key: 'open',
        UploadId: open.UploadId,
        PartNumber,
        Body: Buffer.alloc(size),
      }),
    )
  }
  const done = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'multipart', Key: 'done' }))
  const parts = []
  for (const [PartNumber, size] of [
    [1, 5 * MiB],
    [2, 2000],
  ] as const) {
    const part = await s3.send(
      new UploadPartCommand({
        Bucket: 'multipart',
        Key: 'done',
        UploadId: done.UploadId,
        PartNumber,
        Body: Buffer.alloc(size),
      }),
    )
    parts.push({ PartNumber, ETag: part.ETag })
  }
  await s3.send(
    new CompleteMultipartUploadCommand({
      Bucket: 'multipart',
      Key: 'done',
      UploadId: done.UploadId,
      MultipartUpload: { Parts: parts },
    }),
  )
  // empty, and quota (a 1 MiB / 10 objects quota, one object).
  await s3.send(new CreateBucketCommand({ Bucket: 'empty' }))
  await s3.send(new CreateBucketCommand({ Bucket: 'quota' }))
  await put('quota', 'one', 4097)
  await cluster.radosgwAdmin([
    'quota',
    'set',
    '--bucket=quota',
    '--quota-scope=bucket',
    `--max-size=${MiB}`,
    '--max-objects=10',
  ])
  await cluster.radosgwAdmin(['quota', 'enable', '--bucket=quota', '--quota-scope=bucket'])

  const signer = new SignatureV4({ service: 's3', region: cluster.region, credentials, sha256: Sha256 })
  const admin = async (query: Record<string, string>, creds = credentials) => {
    const url = new URL('/admin/bucket', cluster.endpoint)
    const signing =
      creds === credentials
        ? signer
        : new SignatureV4({ service: 's3', region: cluster.region, credentials: creds, sha256: Sha256 })
    const signed = await signing.sign({
      method: 'GET',
      protocol: 'http:',
      hostname: url.hostname,
      port: Number(url.port),
      path: url.pathname,
      query,
      headers: { host: url.host },
    })
    const search = new URLSearchParams(query).toString()
    const response = await fetch(`${url}?${search}`, { headers: signed.headers as Record<string, string> })
    return { status: response.status, body: await response.text() }
  }
  const save = async (name: string, body: string) => {
    await writeFile(join(out, name), `${JSON.stringify(JSON.parse(body), null, 2)}\n`)
    console.log('wrote', name)
  }
  const all = await admin({ stats: 'true', format: 'json' })
  await save('bucket-stats-all.json', all.body)
  const one = await admin({ bucket: 'versioned', stats: 'true', format: 'json' })
  await save('bucket-stats-one.json', one.body)
  const missing = await admin({ bucket: 'no-such-bucket', stats: 'true', format: 'json' })
  console.log('missing bucket:', missing.status)
  await save('error-no-such-bucket.json', missing.body)
  const paged = await admin({ stats: 'true', format: 'json', 'max-entries': '1' })
  console.log(
    'max-entries=1 answered',
    (JSON.parse(paged.body) as unknown[]).length,
    'buckets (pagination ignored?)',
  )
  // A user without admin caps.
  await cluster.radosgwAdmin([
    'user',
    'create',
    '--uid=nocaps',
    '--display-name=nocaps',
    '--access-key=NOCAPSKEY',
    '--secret-key=NOCAPSSECRET',
  ])
  const denied = await admin(
    { stats: 'true', format: 'json' },
    { accessKeyId: 'NOCAPSKEY', secretAccessKey: 'NOCAPSSECRET' },
  )
  console.log('no caps:', denied.status)
  await save('error-access-denied.json', denied.body)
} finally {
  await cluster.stop()
}
