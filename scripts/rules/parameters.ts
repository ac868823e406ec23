/**
 * The one place for the windows and thresholds of the generated rules (forecast, growth, cost)
 * and for the base of every alert's runbook_url. `npm run prometheusrule` writes them into
 * config/alerts.yml; change a value here and run it, never edit the generated block.
 */
export interface TrendAlert {
  /** Fires when full within this many seconds at the trend... */
  readonly horizonSeconds: number
  /** ...and less than this share is free now (node-mixin: a cleanup never pages). */
  readonly freeBelow: number
  readonly for: string
}

export interface RuleParameters {
  /**
   * Where docs/runbook.md is published; each alert links to `<base>#<alertname lowercased>`.
   * The default is a placeholder (the project has no published address yet): docs/deploy.md says
   * how to set it.
   */
  readonly runbookBase: string
  /**
   * The scan interval the windows are checked against (SCAN_INTERVAL_SECONDS's default): bucket
   * figures are a step function, one step per scan, so a window must span at least 3 scans.
   */
  readonly scanIntervalSeconds: number
  /** Drives and cluster usable capacity. */
  readonly capacity: {
    readonly windowSeconds: number
    readonly warning: TrendAlert
    readonly critical: TrendAlert
  }
  /** Buckets with a quota. */
  readonly quota: {
    readonly windowSeconds: number
    readonly horizonSeconds: number
    readonly usedAbove: number
    readonly for: string
  }
  /** ObjstoreBucketGrowingFast: the recent window against the bucket's own baseline before it. */
  readonly growth: {
    readonly recentSeconds: number
    readonly baselineSeconds: number
    readonly factor: number
    readonly floorBytes: number
    readonly for: string
  }
  readonly cost: {
    /** The window of the request rate the scans' cost is priced at. */
    readonly requestRateWindowSeconds: number
    /** A billing month: 730 hours, as AWS's price pages count one. */
    readonly secondsPerMonth: number
    /** The class of bytes whose class the store does not list (no `storage_class` group, hidden bytes). */
    readonly defaultStorageClass: string
  }
}

const HOUR = 3600
const DAY = 24 * HOUR

export const RULE_PARAMETERS: RuleParameters = {
  runbookBase: 'https://github.com/objstore-exporter/objstore-exporter/blob/main/docs/runbook.md',
  scanIntervalSeconds: 300,
  capacity: {
    windowSeconds: 6 * HOUR,
    warning: { horizonSeconds: DAY, freeBelow: 0.4, for: '1h' },
    critical: { horizonSeconds: 4 * HOUR, freeBelow: 0.2, for: '30m' },
  },
  quota: { windowSeconds: DAY, horizonSeconds: 7 * DAY, usedAbove: 0.6, for: '1h' },
  growth: {
    recentSeconds: HOUR,
    baselineSeconds: 7 * DAY,
    factor: 4,
    floorBytes: 1024 ** 3,
    for: '15m',
  },
  cost: { requestRateWindowSeconds: HOUR, secondsPerMonth: 730 * HOUR, defaultStorageClass: 'STANDARD' },
}

/** The problems of a parameter set, one line each; empty when it can be rendered. */
export function parameterProblems(parameters: RuleParameters): string[] {
  const problems: string[] = []
  const scans = 3 * parameters.scanIntervalSeconds
  const windows: Array<[string, number]> = [
    ['capacity.windowSeconds', parameters.capacity.windowSeconds],
    ['quota.windowSeconds', parameters.quota.windowSeconds],
    ['growth.recentSeconds', parameters.growth.recentSeconds],
    ['growth.baselineSeconds', parameters.growth.baselineSeconds],
  ]
  for (const [name, seconds] of windows) {
    if (!Number.isInteger(seconds) || seconds < scans)
      problems.push(`${name}: ${seconds} s is under 3 scan intervals (${scans} s): a scan is one step`)
  }
  if (parameters.growth.baselineSeconds <= parameters.growth.recentSeconds)
    problems.push('growth.baselineSeconds: must be longer than growth.recentSeconds')
  for (const [name, share] of [
    ['capacity.warning.freeBelow', parameters.capacity.warning.freeBelow],
    ['capacity.critical.freeBelow', parameters.capacity.critical.freeBelow],
    ['quota.usedAbove', parameters.quota.usedAbove],
  ] as const) {
    if (!(share > 0 && share < 1)) problems.push(`${name}: ${share} is not a share between 0 and 1`)
  }
  if (!/^https?:\/\/[^/\s#]+\/[^\s#]*$/.test(parameters.runbookBase))
    problems.push(
      `runbookBase: ${JSON.stringify(parameters.runbookBase)} is not an absolute http(s) URL without #`,
    )
  return problems
}

/** Seconds as a PromQL duration, in the largest unit that divides them (`21600` -> `6h`). */
export function duration(seconds: number): string {
  for (const [unit, size] of [
    ['d', DAY],
    ['h', HOUR],
    ['m', 60],
  ] as const) {
    if (seconds % size === 0) return `${seconds / size}${unit}`
  }
  return `${seconds}s`
}

/** Seconds as words for an alert's text (`86400` -> `24 hours`, `604800` -> `7 days`). */
export function inWords(seconds: number): string {
  if (seconds % DAY === 0 && seconds > DAY) return `${seconds / DAY} days`
  if (seconds % HOUR === 0) return seconds === HOUR ? 'an hour' : `${seconds / HOUR} hours`
  if (seconds % 60 === 0) return `${seconds / 60} minutes`
  return `${seconds} seconds`
}

/** A window after "the last" (`3600` -> `hour`, `21600` -> `6 hours`). */
export function lastWindow(seconds: number): string {
  return seconds === HOUR ? 'hour' : inWords(seconds)
}

/** Bytes in binary units for an alert's text (`1073741824` -> `1 GiB`). */
export function bytesInWords(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let unit = 0
  let value = bytes
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${Math.round(value * 10) / 10} ${units[unit]}`
}

/** A share as a percentage for an alert's text (`0.4` -> `40%`). */
export function percent(share: number): string {
  return `${Math.round(share * 1000) / 10}%`
}
