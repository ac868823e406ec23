import { quotaRecords } from './forecast.js'
import { bytesInWords, duration, inWords, lastWindow, type RuleParameters } from './parameters.js'
import { runbookUrl } from './runbook.js'
import { NS, type Rule } from './types.js'

/** The names the growth rules record. */
export function growthRecords(parameters: RuleParameters) {
  const { recentSeconds, baselineSeconds } = parameters.growth
  const recent = duration(recentSeconds)
  return {
    recent: `bucket:${NS}_bucket_usage_total_bytes:delta${recent}`,
    baseline: `bucket:${NS}_bucket_usage_growth_baseline_bytes:delta${recent}_avg${duration(baselineSeconds)}`,
    ratio: `bucket:${NS}_bucket_usage_growth_per_baseline:ratio`,
  }
}

/**
 * A bucket judged against its own baseline, not a fixed rate (buckets' normal growth differs by
 * orders of magnitude): the growth of the recent window over the average growth per window of
 * the baseline before it. On the job-level series (forecast.ts), so a restart or a second
 * replica changes nothing; only for a bucket present since the start of the baseline, so a
 * young bucket (whose short history would make a small baseline) never fires. In the forecast
 * group, after the job-level series they read: a group evaluates its rules in order.
 */
export function growthRules(parameters: RuleParameters): Rule[] {
  const { recentSeconds, baselineSeconds, factor, floorBytes } = parameters.growth
  const names = growthRecords(parameters)
  const usage = quotaRecords(parameters).usage
  const recent = duration(recentSeconds)
  const windows = baselineSeconds / recentSeconds
  return [
    { record: names.recent, expr: `delta(${usage}[${recent}])` },
    {
      record: names.baseline,
      expr: [
        `clamp_min(delta(${usage}[${duration(baselineSeconds)}] offset ${recent}), 0) / ${windows}`,
        'and on (job, bucket)',
        `present_over_time(${usage}[${recent}] offset ${duration(baselineSeconds)})`,
        '',
      ].join('\n'),
    },
    // Above `factor` exactly when the recent growth is over factor x the baseline AND over the
    // floor: a baseline under floor/factor counts as floor/factor.
    {
      record: names.ratio,
      expr: `${names.recent}\n/ on (job, bucket)\nclamp_min(${names.baseline}, ${floorBytes / factor})\n`,
    },
    {
      alert: 'ObjstoreBucketGrowingFast',
      expr: `${names.ratio} > ${factor}`,
      for: parameters.growth.for,
      labels: { severity: 'warning' },
      annotations: {
        summary: 'Bucket {{ $labels.bucket }} is growing abnormally fast',
        description: `Bucket {{ $labels.bucket }} grew {{ $value | printf "%.1f" }} times its usual growth in the last ${lastWindow(recentSeconds)}: more than ${factor} times its average per ${lastWindow(recentSeconds)} over the ${inWords(baselineSeconds)} before, and more than ${bytesInWords(floorBytes)}.`,
        runbook_url: runbookUrl('ObjstoreBucketGrowingFast', parameters),
      },
    },
  ]
}
