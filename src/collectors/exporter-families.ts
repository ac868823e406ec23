import { describe, family } from '../metrics/families.js'
import type { MetricSink } from '../metrics/metric-set.js'
import { VERSION } from '../version.js'
import { workerThreadCounts } from '../worker-threads.js'

/** The exporter itself: its build, and how each collector fared in this scrape (runner.ts). */
export const exporterFamilies = describe('exporter', {
  exporter_build_info: family(
    'gauge',
    ['version', 'node_version'],
    'Build information of the exporter; always 1.',
  ),
  scrape_collector_success: family(
    'gauge',
    ['collector'],
    'Whether the collector succeeded in this scrape (1) or failed or timed out (0).',
  ),
  scrape_collector_duration_seconds: family(
    'gauge',
    ['collector'],
    'Time the collector took in this scrape.',
  ),
  worker_threads_started_total: family(
    'counter',
    ['worker'],
    'Worker threads the exporter started, by worker (walk-worker: the fs walk; usage-render-worker: rendering the usage families). They live as long as the process: a count that grows with scan rounds is thread churn.',
  ),
  worker_threads: family(
    'gauge',
    ['worker'],
    'Worker threads running now, by worker (a walk thread stuck in a hung filesystem included).',
  ),
})

type Sink = MetricSink<typeof exporterFamilies>

export function writeBuildInfo(out: Sink): void {
  out.set('exporter_build_info', { version: VERSION, node_version: process.version }, 1)
}

/** The worker threads started so far and running, for each worker that has started one. */
export function writeWorkerThreads(out: Sink): void {
  for (const [worker, counts] of workerThreadCounts()) {
    out.set('worker_threads_started_total', { worker }, counts.started)
    out.set('worker_threads', { worker }, counts.running)
  }
}

export function writeCollectorOutcome(out: Sink, collector: string, ok: boolean, seconds: number): void {
  out.set('scrape_collector_success', { collector }, ok ? 1 : 0)
  out.set('scrape_collector_duration_seconds', { collector }, seconds)
}
