import { costRecords } from '../../rules/cost.js'
import { capacityRecords, quotaRecords } from '../../rules/forecast.js'
import { growthRecords } from '../../rules/growth.js'
import { bytesInWords, inWords, lastWindow, type RuleParameters } from '../../rules/parameters.js'
import type { RowSpec } from '../grafana.js'
import { bargauge, note, table, timeseries, unitOverride } from '../panels.js'
import type { Queries } from '../queries.js'

/** A recorded name of config/alerts.yml (written for `objstore`) under the dashboard's namespace. */
function named(namespace: string, record: string): string {
  return record.replace(':objstore_', `:${namespace}_`)
}

/**
 * The dashboard's "Forecast and cost" row: days until full (cluster, drives, quotas), the fastest
 * growing buckets against their own baseline, cost by bucket and class, reclaimable cost, the
 * scans' own cost. Every query reads a recording rule of config/alerts.yml (scripts/rules/):
 * job-level series, so they filter on `$job` (and `$bucket`), not on `$instance`. Names and
 * windows come from the rules' parameters. docs/forecast-and-cost.md explains the figures.
 */
export function forecastAndCostRow(q: Queries, parameters: RuleParameters): RowSpec {
  const namespace = q.m('bucket_usage_total_bytes').replace(/_bucket_usage_total_bytes$/, '')
  const r = (record: string, selector: string) => `${named(namespace, record)}${selector}`
  const job = '{job=~"$job"}'
  const jobBucket = '{job=~"$job", bucket=~"$bucket"}'
  const drive = '{job=~"$job", instance=~"$instance"}'
  const cluster = capacityRecords('cluster', parameters)
  const drives = capacityRecords('drive', parameters)
  const quota = quotaRecords(parameters)
  const growth = growthRecords(parameters)
  const cost = costRecords(parameters)
  const { capacity, growth: baseline, cost: prices } = parameters
  const recent = lastWindow(baseline.recentSeconds)
  const days = (expr: string) => `${expr} / 86400`
  const noPrice = 'No data: set STORAGE_PRICES (docs/forecast-and-cost.md)'
  return {
    title: 'Forecast and cost',
    panels: [
      note(
        'About this row',
        [
          `Time until full is the recorded trend of the last ${inWords(capacity.windowSeconds)} (${inWords(parameters.quota.windowSeconds)} for quotas), on one series per job, drive or bucket: absent while nothing fills.`,
          `Growth is judged against each bucket's own baseline (the ${inWords(baseline.baselineSeconds)} before); cost needs \`STORAGE_PRICES\` and \`REQUEST_PRICES\` (never assumed).`,
          "The recording rules are config/alerts.yml's `objstore-forecast` and `objstore-cost` groups; see docs/forecast-and-cost.md.",
        ].join(' '),
      ),
      table(
        'Days until full',
        [
          { expr: days(r(cluster.untilFull, job)) },
          { expr: days(r(drives.untilFull, drive)) },
          { expr: days(r(quota.untilFull, jobBucket)) },
        ],
        ['Cluster (usable)', 'Drive', 'Bucket quota'],
        {
          w: 12,
          h: 8,
          description:
            'Days until full at the current trend: the usable capacity of each job, each drive, each bucket with a quota. A missing row is not filling.',
          noValue: 'Nothing is filling',
          overrides: [
            unitOverride('Cluster (usable)', 'd'),
            unitOverride('Drive', 'd'),
            unitOverride('Bucket quota', 'd'),
          ],
          sortBy: 'Cluster (usable)',
        },
      ),
      timeseries(
        'Days until full over time',
        'd',
        [
          { expr: days(r(cluster.untilFull, job)), legend: 'cluster {{job}}' },
          { expr: days(r(drives.untilFull, drive)), legend: '{{instance}} {{drive}}' },
          { expr: days(r(quota.untilFull, jobBucket)), legend: 'quota {{bucket}}' },
        ],
        {
          description:
            'A falling line is a trend that holds; a jump is a change of pace (a new writer, a cleanup).',
          noValue: 'Nothing is filling',
        },
      ),
      bargauge(
        'Fastest growing buckets',
        'x',
        `topk(15, ${r(growth.ratio, jobBucket)})`,
        `The growth of the last ${recent} over the bucket's average growth per ${recent} in the ${inWords(baseline.baselineSeconds)} before (floored at ${bytesInWords(baseline.floorBytes / baseline.factor)} per ${recent}): above ${baseline.factor} is ObjstoreBucketGrowingFast. Buckets younger than that are not ranked.`,
        '{{bucket}}',
        { w: 12, h: 8, noValue: `No bucket has ${inWords(baseline.baselineSeconds)} of history yet` },
      ),
      timeseries(
        `Growth in the last ${recent}`,
        'bytes',
        [{ expr: `topk(10, ${r(growth.recent, jobBucket)})`, legend: '{{bucket}}' }],
        { description: `Bytes each bucket grew by over the last ${recent} (the 10 largest).` },
      ),
      bargauge(
        'Cost per month by bucket',
        'currencyUSD',
        `topk(15, sum by (job, bucket) (${r(cost.storage, jobBucket)}))`,
        'What each bucket costs a month at its current size: current bytes per storage class, noncurrent versions and parts of incomplete uploads, times STORAGE_PRICES (the currency is yours; the unit shows $).',
        '{{bucket}}',
        { w: 12, h: 8, noValue: noPrice },
      ),
      bargauge(
        'Cost per month by storage class and part',
        'currencyUSD',
        `sum by (storage_class, part) (${r(cost.storage, jobBucket)})`,
        `The same cost by storage class and by part: current, noncurrent, incomplete_uploads (hidden bytes are priced as ${prices.defaultStorageClass}).`,
        '{{storage_class}} {{part}}',
        { w: 12, h: 8, noValue: noPrice },
      ),
      bargauge(
        'Reclaimable cost per month',
        'currencyUSD',
        `topk(15, ${r(cost.reclaimable, jobBucket)})`,
        `What lifecycle rules would save each month: noncurrent versions and stale upload parts at the ${prices.defaultStorageClass} price.`,
        '{{bucket}}',
        { w: 12, h: 8, noValue: `${noPrice}; needs BUCKET_METRICS with hidden and SCAN_VERSIONS=true` },
      ),
      bargauge(
        "Scans' own cost per month",
        'currencyUSD',
        `sum by (operation) (${r(cost.scans, job)})`,
        `What the exporter's own S3 requests cost a month at the rate of the last ${lastWindow(prices.requestRateWindowSeconds)}, by operation (List* at the list price, the others at the other price).`,
        '{{operation}}',
        { w: 12, h: 8, noValue: 'No data: set REQUEST_PRICES; only the s3 source sends priced requests' },
      ),
    ],
  }
}
