/** Share of Prometheus's scrape timeout the collectors may use; the rest is rendering and transfer. */
const HEADER_SHARE = 0.9

/**
 * The least a scrape header can cut the budget to. Collectors read snapshots or call statfs and
 * need milliseconds, but a header of `0.000001` would fail them all on every other scrape and
 * flip their logged state; below this a client asking for less simply gets its answer late.
 */
export const MIN_HEADER_BUDGET_MS = 500

/**
 * The time collectors get for one scrape: SCRAPE_TIMEOUT_SECONDS, or less when Prometheus says
 * (X-Prometheus-Scrape-Timeout-Seconds) that it will give up sooner, but never less than
 * MIN_HEADER_BUDGET_MS on a header's word (the configured value alone may go lower).
 */
export function scrapeBudgetMs(configuredSeconds: number, header: string | string[] | undefined): number {
  const configuredMs = configuredSeconds * 1000
  const value = Array.isArray(header) ? header[0] : header
  const headerSeconds = value === undefined ? Number.NaN : Number.parseFloat(value)
  const ms =
    Number.isFinite(headerSeconds) && headerSeconds > 0
      ? Math.min(configuredMs, Math.max(MIN_HEADER_BUDGET_MS, headerSeconds * HEADER_SHARE * 1000))
      : configuredMs
  return Math.max(1, Math.round(ms))
}
