import { growthRules } from './growth.js'
import { duration, inWords, percent, type RuleParameters, type TrendAlert } from './parameters.js'
import { runbookUrl } from './runbook.js'
import { NS, type Rule, type RuleGroup } from './types.js'

/**
 * Time until full, for the cluster's usable capacity, each drive and each bucket with a quota.
 * Each level first takes the largest figure over the series that describe one thing (`max by`
 * its identity, so a second replica or a restarted exporter under a new `instance` or `pod` is
 * the same series), records it, and fits the trend over the recorded series: deriv over a window
 * of many scans, as a scan makes bucket figures a step function. Time until full is what is
 * left over the rate, recorded only while filling; alerts add a current threshold (node-mixin),
 * so a cleanup or a young trend on an empty store never pages.
 */
interface CapacityLevel {
  /** The record's level and what identifies one thing there. */
  readonly level: string
  readonly by: string
  /** The middle of the record names (`usable_capacity`, `node_drive`). */
  readonly name: string
  readonly free: string
  readonly size: string
}

const CLUSTER: CapacityLevel = {
  level: 'cluster',
  by: 'job',
  name: 'usable_capacity',
  free: `${NS}_cluster_capacity_usable_free_bytes`,
  size: `${NS}_cluster_capacity_usable_total_bytes`,
}

// A drive is its host's: `instance` stays (two hosts may mount the same path).
const DRIVE: CapacityLevel = {
  level: 'drive',
  by: 'job, instance, drive',
  name: 'node_drive',
  free: `${NS}_node_drive_free_bytes`,
  size: `${NS}_node_drive_used_bytes + ${NS}_node_drive_free_bytes`,
}

/** The names a capacity level records, for the alerts and the dashboard. */
export function capacityRecords(level: 'cluster' | 'drive', parameters: RuleParameters) {
  const { level: prefix, name } = level === 'cluster' ? CLUSTER : DRIVE
  return {
    free: `${prefix}:${NS}_${name}_free_bytes:max`,
    size: `${prefix}:${NS}_${name}_size_bytes:max`,
    rate: `${prefix}:${NS}_${name}_free_bytes:deriv${duration(parameters.capacity.windowSeconds)}`,
    untilFull: `${prefix}:${NS}_${name}:seconds_until_full`,
  }
}

function capacityRules(level: CapacityLevel, parameters: RuleParameters): Rule[] {
  const names = capacityRecords(level.level as 'cluster' | 'drive', parameters)
  return [
    { record: names.free, expr: `max by (${level.by}) (${level.free})` },
    { record: names.size, expr: `max by (${level.by}) (${level.size})` },
    // Bytes per second the free space changes by; negative while filling.
    { record: names.rate, expr: `deriv(${names.free}[${duration(parameters.capacity.windowSeconds)}])` },
    // Whole seconds: a regression over irregular samples (a gap, a restart) is off in its last bits.
    { record: names.untilFull, expr: `round(${names.free} / -(${names.rate} < 0))` },
  ]
}

/** `until full < horizon`, and under a share free now. */
function trendCondition(level: CapacityLevel, alert: TrendAlert, parameters: RuleParameters): string {
  const names = capacityRecords(level.level as 'cluster' | 'drive', parameters)
  return [
    `${names.untilFull} < ${alert.horizonSeconds}`,
    `and on (${level.by})`,
    `${names.free} / ${names.size} < ${alert.freeBelow}`,
    '',
  ].join('\n')
}

function clusterAlerts(parameters: RuleParameters): Rule[] {
  const { window, alerts } = trendWords(parameters)
  return alerts.map(({ name, alert, severity }) => ({
    alert: `ObjstoreCluster${name}`,
    expr: trendCondition(CLUSTER, alert, parameters),
    for: alert.for,
    labels: { severity },
    annotations: {
      summary: 'Usable capacity of {{ $labels.job }} will be full in {{ $value | humanizeDuration }}',
      description: `At the trend of the last ${window}, the usable capacity of job {{ $labels.job }} (the largest figure its instances report) runs out within ${inWords(alert.horizonSeconds)}, and less than ${percent(alert.freeBelow)} of it is free.`,
      runbook_url: runbookUrl(`ObjstoreCluster${name}`, parameters),
    },
  }))
}

function driveAlerts(parameters: RuleParameters): Rule[] {
  const { window, alerts } = trendWords(parameters)
  return alerts.map(({ name, alert, severity }) => ({
    alert: `ObjstoreDrive${name}`,
    expr: trendCondition(DRIVE, alert, parameters),
    for: alert.for,
    labels: { severity },
    annotations: {
      summary: `Drive {{ $labels.drive }} on {{ $labels.instance }} will be full within ${inWords(alert.horizonSeconds)}`,
      description: `At the rate of the last ${window}, {{ $labels.drive }} runs out of space in {{ $value | humanizeDuration }}, and less than ${percent(alert.freeBelow)} of it is free.`,
      runbook_url: runbookUrl(`ObjstoreDrive${name}`, parameters),
    },
  }))
}

function trendWords(parameters: RuleParameters) {
  const { warning, critical, windowSeconds } = parameters.capacity
  return {
    window: inWords(windowSeconds),
    alerts: [
      { name: 'FillingUp', alert: warning, severity: 'warning' },
      { name: 'FillingUpFast', alert: critical, severity: 'critical' },
    ],
  }
}

/** The names the quota level records. */
export function quotaRecords(parameters: RuleParameters) {
  return {
    usage: `bucket:${NS}_bucket_usage_total_bytes:max`,
    quota: `bucket:${NS}_bucket_quota_total_bytes:max`,
    rate: `bucket:${NS}_bucket_usage_total_bytes:deriv${duration(parameters.quota.windowSeconds)}`,
    untilFull: `bucket:${NS}_bucket_quota:seconds_until_full`,
  }
}

function quotaRules(parameters: RuleParameters): Rule[] {
  const names = quotaRecords(parameters)
  const { quota } = parameters
  return [
    // Every bucket (the growth rules read it too); SHARD gives a bucket to one instance, replicas repeat it.
    { record: names.usage, expr: `max by (job, bucket) (${NS}_bucket_usage_total_bytes)` },
    { record: names.quota, expr: `max by (job, bucket) (${NS}_bucket_quota_total_bytes > 0)` },
    {
      record: names.rate,
      expr: `deriv(${names.usage}[${duration(quota.windowSeconds)}])\nand on (job, bucket)\n${names.quota}\n`,
    },
    {
      record: names.untilFull,
      expr: `round(clamp_min(${names.quota} - ${names.usage}, 0) / (${names.rate} > 0))`,
    },
    {
      alert: 'ObjstoreBucketQuotaFillingUp',
      expr: [
        `${names.untilFull} < ${quota.horizonSeconds}`,
        'and on (job, bucket)',
        `${names.usage} / ${names.quota} > ${quota.usedAbove}`,
        '',
      ].join('\n'),
      for: quota.for,
      labels: { severity: 'warning' },
      annotations: {
        summary: 'Bucket {{ $labels.bucket }} will reach its quota in {{ $value | humanizeDuration }}',
        description: `At the trend of the last ${inWords(quota.windowSeconds)}, bucket {{ $labels.bucket }} (job {{ $labels.job }}) uses more than ${percent(quota.usedAbove)} of its quota and reaches it within ${inWords(quota.horizonSeconds)}; writes are refused from then on.`,
        runbook_url: runbookUrl('ObjstoreBucketQuotaFillingUp', parameters),
      },
    },
  ]
}

export function forecastGroup(parameters: RuleParameters): RuleGroup {
  return {
    name: 'objstore-forecast',
    rules: [
      ...capacityRules(CLUSTER, parameters),
      ...clusterAlerts(parameters),
      ...capacityRules(DRIVE, parameters),
      ...driveAlerts(parameters),
      ...quotaRules(parameters),
      ...growthRules(parameters),
    ],
  }
}
