import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startExporter } from '../support/exporter.js'
import { sampleValue } from '../support/exposition.js'
import { assertPrefixRows, type KeyedObject } from '../support/prefix-expectations.js'
import { type RgwCluster, startRgwCluster } from '../support/rgw-cluster.js'
import {
  AWKWARD_KEYS,
  inParallel,
  rgwSourceEnv,
  type ScenarioStore,
  type ScenarioWriter,
  startScenarioStore,
} from '../support/rgw-scenario.js'

/**
 * Prefix figures (issue 14) against a real Ceph RGW through BUCKETS_SOURCE=s3: nested keys over
 * more than one listing page, awkward keys (unicode, `//`, a trailing slash), overwrites and a
 * delete in a versioned bucket (only current objects count), at two depths, with and without
 * SCAN_VERSIONS, checked against the keys written.
 */
describe('prefix figures against Ceph RGW', { timeout: 15 * 60_000 }, () => {
  let store: ScenarioStore<RgwCluster>
  let cluster: RgwCluster
  let writer: ScenarioWriter

  before(async () => {
    store = await startScenarioStore(startRgwCluster, async (writer) => {
      await writer.createBucket('nested', { versioned: true })
      const keys = [
        ...AWKWARD_KEYS,
        ...Array.from({ length: 1_060 }, (_, index) =>
          index % 40 === 39
            ? `top-${index}`
            : `team-${index % 9}/year-${2020 + (index % 4)}/obj-${String(index).padStart(5, '0')}`,
        ),
      ]
      await inParallel(keys, 8, (key) => writer.put('nested', key, (key.length * 97) % 3_000))
      // Overwrites keep noncurrent versions, which are not counted; a deleted key is not counted.
      await writer.put('nested', 'team-1/year-2021/obj-00010', 9_999)
      await writer.put('nested', 'team-2/year-2022/obj-00011', 8_888)
      await writer.delete('nested', 'team-3/year-2023/obj-00003')
    })
    ;({ cluster, writer } = store)
  })
  after(() => store?.stop())

  /** Current objects as written: each key's latest version, unless a delete marker. */
  const current = (): KeyedObject[] => {
    const objects: KeyedObject[] = []
    for (const [key, versions] of writer.model('nested').versionsByKey) {
      const latest = versions.at(-1)
      if (latest && !latest.deleteMarker) objects.push({ key, size: latest.size })
    }
    return objects
  }

  for (const [depth, topK, scanVersions] of [
    [1, 5, 'true'],
    [2, 20, 'false'],
  ] as const) {
    it(`depth ${depth}, top ${topK}, SCAN_VERSIONS=${scanVersions}: exact rows in a real scrape`, async (t) => {
      const exporter = await startExporter(
        rgwSourceEnv(cluster, 's3', {
          SCAN_VERSIONS: scanVersions,
          PREFIX_DEPTH: String(depth),
          PREFIX_TOP_K: String(topK),
          BUCKET_METRICS: 'all',
        }),
      )
      t.after(() => exporter.close())
      await exporter.exporter.scanner.scanNow()
      const scrape = await exporter.scrape()
      const objects = current()
      assert.ok(objects.length > 1_000, 'more than one listing page')
      assert.equal(sampleValue(scrape, 'objstore_bucket_usage_objects', { bucket: 'nested' }), objects.length)
      assertPrefixRows(scrape, 'nested', objects, { depth, delimiter: '/', topK })
    })
  }
})
