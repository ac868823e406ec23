/** Share of Prometheus's scrape timeout the collectors may use; the rest is rendering and transfer. */
const HEADER_SHARE = 0.9

/**
 * The time collectors get for one scrape: SCRAPE_TIMEOUT_SECONDS, or less when Prometheus says
 * (X-Prometheus-Scrape-Timeout-Seconds) that it will give up sooner.
 */
export function scrapeBudgetMs(configuredSeconds: number, header: string | string[] | undefined): number {
  const value = Array.isArray(header) ? header[0] : header
  const headerSeconds = value === undefined ? Number.NaN : Number.parseFloat(value)
  const seconds =
    Number.isFinite(headerSeconds) && headerSeconds > 0
      ? Math.min(configuredSeconds, headerSeconds * HEADER_SHARE)
      : configuredSeconds
  return Math.max(1, Math.round(seconds * 1000))
}
