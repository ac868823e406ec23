import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startExporter } from './exporter.js'
import { assertSameMeasure, slowPages } from './listing-comparison.js'
import { inParallel, rgwS3Client, rgwSourceEnv, ScenarioWriter } from './rgw-scenario.js'
import { type S3Gate, startS3Gate } from './s3-gate.js'

/** A running store to write to and measure: its S3 access and how to stop it. */
export interface RunningStore {
  readonly endpoint: string
  readonly region: string
  readonly accessKeyId: string
  readonly secretAccessKey: string
  stop(): Promise<void>
}

/**
 * A versioned bucket listed in key ranges at once (S3_LIST_RANGES, issue 15) with
 * SCAN_VERSIONS=true measures what one ListObjectVersions listing page after page does:
 * versions, delete markers, expired delete markers, noncurrent bytes and ages (each noncurrent
 * version aged from its successor, so a key's history must never be cut), every family of a
 * BUCKET_METRICS=all scrape. Keys with long histories make pages end inside a key's versions,
 * both in the first listing and inside the ranges. One suite for every real store with versions.
 */
export function describeRangedVersions(
  title: string,
  startStore: () => Promise<RunningStore>,
  options: { readonly skip?: string | false } = {},
): void {
  describe(title, { timeout: 15 * 60_000, skip: options.skip ?? false }, () => {
    let store: RunningStore
    let writer: ScenarioWriter
    let entries = 0
    let gate: S3Gate

    before(async () => {
      store = await startStore()
      writer = new ScenarioWriter(rgwS3Client(store))
      await writer.createBucket('history', { versioned: true })
      const keys = Array.from(
        { length: 2_400 },
        (_, index) => `team-${index % 6}/y${2020 + (index % 3)}/obj-${String(index).padStart(5, '0')}`,
      )
      await inParallel(keys, 8, async (key) => {
        const index = Number(key.slice(-5))
        // Every 40th key has thirteen versions: a page's end falls inside some key's history.
        const versions = index % 40 === 0 ? 13 : 1
        for (let version = 0; version < versions; version++) {
          await writer.put('history', key, ((index + 1) * 131 * (version + 1)) % 70_000)
          entries++
        }
        if (index % 97 === 0) {
          await writer.delete('history', key)
          entries++
        }
      })
      // Keys whose only entry is a delete marker (deleted without ever being written).
      for (let index = 0; index < 12; index++) {
        await writer.delete('history', `team-${index % 6}/gone-${index}`)
        entries++
      }
      // Slow version pages, fast probes: the plan is ready before so small a bucket is listed.
      gate = await startS3Gate(Number(new URL(store.endpoint).port))
      gate.policy = slowPages(500)
    })
    after(async () => {
      await gate?.close()
      writer?.s3.destroy()
      await store?.stop()
    })

    async function measure(extra: Record<string, string>) {
      const exporter = await startExporter(
        rgwSourceEnv({ ...store, endpoint: gate.endpoint }, 's3', {
          SCAN_VERSIONS: 'true',
          BUCKET_METRICS: 'all',
          PREFIX_DEPTH: '2',
          SCAN_CONCURRENCY: '8',
          LOG_LEVEL: 'debug',
          ...extra,
        }),
      )
      try {
        const snapshot = await exporter.exporter.scanner.firstSnapshot()
        const splits = exporter.logs.lines.filter((line) => line.msg === 'bucket listed in key ranges')
        return { snapshot, scrape: await exporter.scrape(), splits }
      } finally {
        await exporter.close()
      }
    }

    it('identical figures to one listing, every family; the listing was split', async () => {
      assert.ok(entries > 3_000, `${entries} entries: more than three pages of versions`)
      const sequential = await measure({ S3_LIST_RANGES: '0' })
      const ranged = await measure({})
      assert.deepEqual(sequential.splits, [])
      assert.equal(ranged.splits.length, 1)
      assert.ok(Number(ranged.splits[0]?.ranges) >= 4, JSON.stringify(ranged.splits))
      const versions = ranged.snapshot.buckets[0]?.usage?.versions
      assert.equal(versions?.versions, entries)
      assert.equal(versions?.expiredDeleteMarkers, 12)
      assert.ok((versions?.noncurrentBytes ?? 0) > 0)
      assertSameMeasure(sequential, ranged)
    })
  })
}
