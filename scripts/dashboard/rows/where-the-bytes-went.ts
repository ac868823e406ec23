import type { CatalogueName } from '../../../src/collectors/catalogue.js'
import { AGE_BANDS } from '../../../src/figures/age-bands.js'
import type { QuerySpec, RowSpec } from '../grafana.js'
import { bargauge, note, table, timeseries, unitOverride } from '../panels.js'
import type { Queries } from '../queries.js'

/** The BUCKET_METRICS value that feeds every panel of the row: the defaults and the opt-in groups it reads. */
const WHERE_THE_BYTES_WENT_GROUPS = 'default,age,hidden,prefixes,info'

/** What an empty panel says: the groups it needs, by name. */
function needs(groups: string, more = ''): string {
  return `No data: needs BUCKET_METRICS with ${groups} (e.g. BUCKET_METRICS=${WHERE_THE_BYTES_WENT_GROUPS})${more}`
}

/**
 * One query per age band, youngest first, so a stacked panel stacks in age order (Prometheus
 * returns series sorted by label value: gte_365d, lt_180d, lt_1d...), with legends in words.
 */
function byAgeBand({ at, bucketSel }: Queries, family: CatalogueName): QuerySpec[] {
  let from = 0
  return AGE_BANDS.map(({ name, days }) => {
    const legend =
      days === Number.POSITIVE_INFINITY
        ? 'a year or more'
        : from === 0
          ? `under ${days} day${days === 1 ? '' : 's'}`
          : `${from} to ${days} days`
    from = days
    return { expr: `sum(${at(family, `${bucketSel.slice(0, -1)}, age="${name}"}`)})`, legend }
  })
}

/**
 * The dashboard's "Where the bytes went" row: prefixes, age bands, storage class x age, the
 * bytes lifecycle rules could reclaim beside the bucket's owner and lifecycle setting, the largest
 * object. Most of it reads opt-in groups (docs/cardinality.md), so the row says which, and each
 * panel says so when it is empty. docs/where-the-bytes-went.md explains the figures.
 */
export function whereTheBytesWentRow(q: Queries): RowSpec {
  const { at, b, bucketSel, recorded } = q
  const reclaimable = `${recorded('bucket', 'reclaimable_bytes', 'sum')}${bucketSel}`
  const share = `${recorded('bucket', 'reclaimable_bytes_per_stored_bytes', 'ratio')}${bucketSel}`
  // One row per bucket, whatever target labels the series carry, with the bucket's owner,
  // versioning and lifecycle from bucket_info when the `info` group is on (and without them when not).
  const withInfo = (expr: string) => {
    const perBucket = `sum by (job, instance, bucket) (${expr})`
    return `${perBucket} * on (job, instance, bucket) group_left (owner, versioning, lifecycle) max by (job, instance, bucket, owner, versioning, lifecycle) (${b('bucket_info')}) or on (job, instance, bucket) ${perBucket}`
  }
  return {
    title: 'Where the bytes went',
    panels: [
      note(
        'About this row',
        [
          `Most panels here read **opt-in** groups of bucket families: run the exporter with \`BUCKET_METRICS=${WHERE_THE_BYTES_WENT_GROUPS}\``,
          '(`age`: age bands; `hidden`: noncurrent ages, expired delete markers, multipart bytes; `prefixes`: top prefixes; `info`: owner and settings).',
          'Noncurrent figures need `SCAN_VERSIONS=true`; owner comes from the rgw source, versioning and lifecycle from `S3_BUCKET_SETTINGS=true`.',
          'Reclaimable bytes are the `bucket:*_reclaimable_bytes:sum` recording rule of config/alerts.yml. See docs/where-the-bytes-went.md.',
        ].join(' '),
      ),
      table(
        'Reclaimable bytes by bucket',
        [
          { expr: withInfo(reclaimable) },
          { expr: withInfo(share) },
          { expr: withInfo(b('bucket_multipart_uploads_stale_bytes')) },
          { expr: withInfo(b('bucket_noncurrent_bytes')) },
          { expr: withInfo(b('bucket_expired_deletemarkers')) },
        ],
        ['Reclaimable', 'Share of stored', 'Stale uploads', 'Noncurrent versions', 'Expired delete markers'],
        {
          w: 24,
          h: 8,
          description:
            'Bytes a lifecycle rule could remove: parts of incomplete multipart uploads older than MULTIPART_STALE_DAYS (AbortIncompleteMultipartUpload) plus noncurrent versions (NoncurrentVersionExpiration); delete markers with no version behind them are counted (ExpiredObjectDeleteMarker). Share of stored: reclaimable / (current + reclaimable). Owner, versioning and lifecycle come from bucket_info (group `info`); a missing column is a setting the source does not know.',
          noValue: needs('hidden', ' and SCAN_VERSIONS=true for noncurrent versions'),
          overrides: [
            unitOverride('Reclaimable', 'bytes'),
            unitOverride('Share of stored', 'percentunit'),
            unitOverride('Stale uploads', 'bytes'),
            unitOverride('Noncurrent versions', 'bytes'),
          ],
          sortBy: 'Reclaimable',
        },
      ),
      table(
        'Top prefixes per bucket',
        [
          { expr: b('bucket_prefix_usage_total_bytes') },
          { expr: b('bucket_prefix_usage_objects') },
          {
            expr: `${b('bucket_prefix_usage_total_bytes')} / on (job, instance, bucket) group_left () ${b('bucket_usage_total_bytes')}`,
          },
        ],
        ['Bytes', 'Objects', 'Share of bucket'],
        {
          w: 12,
          h: 10,
          description:
            'The PREFIX_TOP_K largest key prefixes of each bucket at PREFIX_DEPTH (fs: folders). "(all other prefixes)" is the prefix="_other" row: the rest of a bucket with more prefixes; "(no delimiter)" counts keys without PREFIX_DELIMITER. Rows are estimates past 8 x PREFIX_TOP_K prefixes (bucket_prefix_error_bytes says by how much at most).',
          noValue: needs('prefixes'),
          overrides: [
            unitOverride('Bytes', 'bytes'),
            unitOverride('Share of bucket', 'percentunit'),
            {
              matcher: { id: 'byName', options: 'prefix' },
              properties: [
                {
                  id: 'mappings',
                  value: [
                    {
                      type: 'value',
                      options: {
                        _other: { text: '(all other prefixes)', color: 'orange' },
                        _root: { text: '(no delimiter)', color: 'blue' },
                      },
                    },
                  ],
                },
                { id: 'custom.cellOptions', value: { type: 'color-text' } },
              ],
            },
          ],
          sortBy: 'Bytes',
        },
      ),
      bargauge(
        'Largest prefixes',
        'bytes',
        `topk(15, ${at('bucket_prefix_usage_total_bytes', `${bucketSel.slice(0, -1)}, prefix!="_other"}`)})`,
        'The 15 largest prefix rows over the selected buckets, the "_other" remainders left out.',
        '{{bucket}}: {{prefix}}',
        { w: 12, h: 10, noValue: needs('prefixes') },
      ),
      timeseries('Bytes by age', 'bytes', byAgeBand(q, 'bucket_age_bytes'), {
        stacked: true,
        description:
          'Current bytes by last-modified age band at each scan (the `age` label: lt_1d under a day ... gte_365d a year or more), stacked youngest first, over the selected buckets: pick one with the Bucket variable. Old bands are candidates for tiering or expiry.',
        noValue: needs('age'),
      }),
      timeseries(
        'Noncurrent bytes by time noncurrent',
        'bytes',
        byAgeBand(q, 'bucket_noncurrent_age_bytes'),
        {
          stacked: true,
          description:
            'Noncurrent versions by how long they have been noncurrent, stacked: what a NoncurrentVersionExpiration rule of N days would remove is the bands older than N.',
          noValue: needs('hidden', ' and SCAN_VERSIONS=true'),
        },
      ),
      bargauge(
        'Storage class x age',
        'bytes',
        `sum by (storage_class, age) (${b('bucket_storage_class_age_bytes')})`,
        'Current bytes per storage class and last-modified age band over the selected buckets: old bytes in a hot class are candidates for a transition rule.',
        '{{storage_class}} {{age}}',
        { w: 12, h: 10, noValue: needs('age', ' and a store that lists storage classes (s3)') },
      ),
      bargauge(
        'Largest object',
        'bytes',
        `topk(15, ${b('bucket_largest_object_bytes')})`,
        'Size of the largest current object of each bucket (the key is not exported).',
        '{{bucket}}',
        { w: 12, h: 10, noValue: needs('sizes') },
      ),
      // RGW per-user quotas and usage, and the usage log (ops and bytes per bucket and category),
      // are families another change of issue 14 adds: their panels go here, each with a noValue
      // naming its group, once their names are in the catalogue (queries.ts takes only those).
    ],
  }
}
