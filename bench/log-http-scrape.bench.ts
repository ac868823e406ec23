import { LogReceiver } from '../test/support/log-receiver.js'
import { scrapeSideBySide, startLoggingExporter } from '../test/support/logging-exporter.js'
import { type BenchRow, median, report } from './support/report.js'

/**
 * What a log receiver that never answers costs a scrape: two real exporters side by side, one
 * logging to the console only (baseline), one also shipping to a receiver that holds every POST;
 * both log 500 entries between scrapes and are scraped alternately. Target: the stuck one's
 * median scrape latency within 2x the baseline's (logging never waits for the network; measured
 * 0.7x-1.5x on a shared 2-core machine, so the bound leaves room for noise).
 */
const ROUNDS = 200
const receiver = await LogReceiver.start({ answer: () => 'hang' })
const baseline = await startLoggingExporter(undefined)
const stuck = await startLoggingExporter(receiver)
try {
  const run = await scrapeSideBySide(baseline, stuck, receiver, { rounds: ROUNDS, warmUpRounds: 20 })
  const baselineMs = median(run.baselineMs)
  const stuckMs = median(run.stuckMs)
  const ratio = stuckMs / baselineMs
  const stats = stuck.stats()
  const rows: BenchRow[] = [
    {
      name: 'scrape latency, log receiver never answering',
      figure: `${stuckMs.toFixed(2)} ms median`,
      baseline: `${baselineMs.toFixed(2)} ms console only`,
      ratio,
      target: '<= 2x',
      pass: ratio <= 2 && run.statuses.every((status) => status === 200) && run.completedWhileStuck > 0,
    },
    {
      name: 'log queue held, receiver never answering',
      figure: `${stats?.queued} entries (${stats?.dropped} dropped)`,
      baseline: 'LOG_HTTP_QUEUE_SIZE 1000',
      ratio: (stats?.queued ?? Number.NaN) / 1000,
      target: '<= 1x',
      pass: (stats?.queued ?? Number.POSITIVE_INFINITY) <= 1000,
    },
  ]
  report(rows)
} finally {
  await stuck.close()
  await baseline.close()
  await receiver.close()
}
