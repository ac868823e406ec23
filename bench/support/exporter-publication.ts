import { type ChildProcess, fork } from 'node:child_process'
import { once } from 'node:events'
import { get, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import pino from 'pino'
import { LoopBlockMonitor, LoopBusyMonitor } from './loop-delay.js'

/**
 * The real exporter (createExporter from the build, the snapshot loaded from its state file) in a
 * fresh process whose heap holds only what an exporter holds, for the event loop's longest block
 * while it publishes snapshots: `publish(during)` settles it (a collection, a pause), calls
 * `during` (the bench starts its scrapes there), then runs two real scans, each published and
 * rendered, and a gzip scrape that waits for the last block; the longest block meanwhile is the
 * child's own (perf_hooks). Measured in the bench's process instead, the heap also held the
 * bench's generated snapshot (its records and the 200,000 objects behind them) for every
 * collection of the publication to walk: not the exporter's cost.
 */
export interface PublishingExporter {
  /** The child's /metrics. */
  readonly url: string
  /**
   * The longest block while two scans are published, after `during` started, and the main
   * thread's longest stretch (CPU time: the block without waits for a core), in ms.
   */
  publish(during: () => void): Promise<{ blockMs: number; busyMs: number }>
  close(): Promise<void>
}

type Message =
  | { kind: 'start'; dist: string; env: Record<string, string> }
  | { kind: 'settle' }
  | { kind: 'publish' }
type Reply = { url: string } | { settled: true } | { blockMs: number; busyMs: number } | { error: string }

export async function startPublishingExporter(
  dist: string,
  env: Record<string, string>,
): Promise<PublishingExporter> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [], {
    // PUBLICATION_ARGV: node flags for the child only (--trace-gc, --cpu-prof), to attribute its blocks.
    execArgv: [
      '--import',
      'tsx',
      '--expose-gc',
      ...(process.env.PUBLICATION_ARGV ?? '').split(' ').filter(Boolean),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const ask = async (message: Message): Promise<Reply> => {
    child.send(message)
    const [reply] = (await Promise.race([once(child, 'message'), once(child, 'exit')])) as [Reply | number]
    if (typeof reply !== 'object' || 'error' in reply)
      throw new Error(`exporter child: ${typeof reply === 'object' ? reply.error : `exit ${reply}`}`)
    return reply
  }
  const close = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.disconnect()
    await Promise.race([once(child, 'exit'), sleep(30_000)])
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL')
      await once(child, 'exit')
    }
  }
  try {
    const started = await ask({ kind: 'start', dist, env })
    if (!('url' in started)) throw new Error('exporter child: no address')
    return {
      url: started.url,
      async publish(during) {
        await ask({ kind: 'settle' })
        during()
        const published = await ask({ kind: 'publish' })
        if (!('blockMs' in published)) throw new Error('exporter child: no figure')
        return published
      },
      close,
    }
  } catch (error) {
    await close()
    throw error
  }
}

/** A GET whose body is read and dropped; resolves with the status once the body has ended. */
async function drainedGet(url: string, headers: Record<string, string>): Promise<number> {
  const response = await new Promise<IncomingMessage>((resolve, reject) =>
    get(url, { headers }, resolve).on('error', reject),
  )
  response.resume()
  await once(response, 'end')
  return response.statusCode ?? 0
}

async function serve(): Promise<void> {
  let exporter: Awaited<ReturnType<typeof import('../../src/exporter.js').createExporter>> | undefined
  const monitor = new LoopBlockMonitor()
  const busy = new LoopBusyMonitor()
  const zipped = { 'Accept-Encoding': 'gzip' }
  const answer = async (message: Message): Promise<Reply> => {
    if (message.kind === 'start') {
      const load = <T>(relative: string) => import(join(message.dist, relative)) as Promise<T>
      const { loadConfig } = await load<typeof import('../../src/config/load.js')>('config/load.js')
      const { createExporter } = await load<typeof import('../../src/exporter.js')>('exporter.js')
      const config = loadConfig({ ...message.env, LOG_LEVEL: 'warn' }, { dotenvPath: false })
      exporter = await createExporter(config, { logger: pino({ level: 'warn' }) })
      await exporter.app.listen({ host: '127.0.0.1', port: 0 })
      // Fastify loads light-my-request on the first inject: now, outside any measurement.
      await exporter.app.inject({ url: '/metrics', headers: zipped })
      return { url: `http://127.0.0.1:${(exporter.app.server.address() as AddressInfo).port}/metrics` }
    }
    if (!exporter) throw new Error('not started')
    if (message.kind === 'settle') {
      // under-pressure answers 503 for a second after a held loop (start-up's load): a pause first.
      globalThis.gc?.()
      await sleep(2500)
      return { settled: true }
    }
    monitor.start()
    busy.start()
    for (let scan = 0; scan < 2; scan++) await exporter.scanner.scanNow()
    // Over the socket, the body drained and dropped: inject() would turn the 2.5 MB body into a
    // string on this thread (10-25 ms in a CPU profile), a block of the bench's, not the exporter's.
    await drainedGet(
      `http://127.0.0.1:${(exporter.app.server.address() as AddressInfo).port}/metrics`,
      zipped,
    )
    return { blockMs: monitor.stop(), busyMs: busy.stop() }
  }
  process.on('message', (message: Message) => {
    answer(message).then(
      (reply) => process.send?.(reply),
      (error: Error) => process.send?.({ error: error.message }),
    )
  })
  // Closed when the bench lets go; exits then even if a handle were left.
  process.once('disconnect', () => {
    void (exporter?.close() ?? Promise.resolve()).finally(() => process.exit(0))
  })
}

if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) await serve()
