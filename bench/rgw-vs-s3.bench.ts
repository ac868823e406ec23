/**
 * Time to measure 1,000 buckets on Ceph RGW both ways, in one run on one throwaway cluster:
 * BUCKETS_SOURCE=rgw (one admin API request for every bucket's counters) against the baseline
 * BUCKETS_SOURCE=s3 (ListBuckets, then ListObjectsV2 and ListMultipartUploads per bucket), each
 * through the real scanner as the exporter builds it. Medians of a few scans each.
 *
 * Env: BENCH_RGW_BUCKETS (default 1000), BENCH_RGW_OBJECTS (objects per bucket, default 10),
 * BENCH_RGW_ROUNDS (scans per source, default 3).
 */
import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3'
import pino from 'pino'
import { loadConfig } from '../src/config/load.js'
import { createScannerFromConfig } from '../src/scanning/index.js'
import { startRgwCluster } from '../test/support/rgw-cluster.js'
import { inParallel, rgwS3Client, rgwSourceEnv } from '../test/support/rgw-scenario.js'
import { median, report } from './support/report.js'

const bucketCount = Number(process.env.BENCH_RGW_BUCKETS ?? 1000)
const objectsPerBucket = Number(process.env.BENCH_RGW_OBJECTS ?? 10)
const rounds = Number(process.env.BENCH_RGW_ROUNDS ?? 3)
/** The rgw source must measure the buckets at least this many times faster than listing them. */
const TARGET_SPEEDUP = 3

const cluster = await startRgwCluster({ maxBuckets: bucketCount + 10 })
try {
  const s3 = rgwS3Client(cluster)
  const started = performance.now()
  const names = Array.from({ length: bucketCount }, (_, i) => `bench-${String(i).padStart(5, '0')}`)
  await inParallel(names, 8, async (Bucket) => {
    await s3.send(new CreateBucketCommand({ Bucket }))
  })
  const objects = names.flatMap((Bucket) =>
    Array.from({ length: objectsPerBucket }, (_, i) => ({ Bucket, Key: `object-${i}`, size: 100 * (i + 1) })),
  )
  await inParallel(objects, 16, async ({ Bucket, Key, size }) => {
    await s3.send(new PutObjectCommand({ Bucket, Key, Body: Buffer.alloc(size, 1) }))
  })
  s3.destroy()
  process.stdout.write(
    `wrote ${bucketCount} buckets x ${objectsPerBucket} objects in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  )

  const expectedBytes = bucketCount * objectsPerBucket * ((objectsPerBucket + 1) / 2) * 100
  const timeScans = async (source: 's3' | 'rgw'): Promise<number[]> => {
    const config = loadConfig(rgwSourceEnv(cluster, source), { dotenvPath: false })
    const scanner = await createScannerFromConfig(config, pino({ level: 'warn' }))
    const seconds: number[] = []
    try {
      for (let round = 0; round < rounds; round++) {
        const begin = performance.now()
        const snapshot = await scanner.scanNow()
        seconds.push((performance.now() - begin) / 1000)
        const bytes = snapshot.buckets.reduce((total, record) => total + (record.usage?.bytes ?? 0), 0)
        if (snapshot.buckets.length !== bucketCount || bytes !== expectedBytes) {
          throw new Error(`${source} measured ${snapshot.buckets.length} buckets, ${bytes} bytes`)
        }
      }
    } finally {
      await scanner.close()
    }
    process.stdout.write(`${source}: ${seconds.map((s) => s.toFixed(3)).join(' s, ')} s\n`)
    return seconds
  }

  const listing = median(await timeScans('s3'))
  const counters = median(await timeScans('rgw'))
  const speedup = listing / counters
  report([
    {
      name: `measure ${bucketCount} RGW buckets (${objectsPerBucket} objects each): rgw vs s3 source`,
      figure: `${counters.toFixed(3)} s (rgw)`,
      baseline: `${listing.toFixed(3)} s (s3)`,
      ratio: speedup,
      target: `>= ${TARGET_SPEEDUP}x faster (baseline/figure)`,
      pass: speedup >= TARGET_SPEEDUP,
    },
  ])
} finally {
  await cluster.stop()
}
