import { mkdtemp, rm } from 'node:fs/promises'
import { get, type IncomingHttpHeaders } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import pino from 'pino'
import type { Config } from '../../src/config/load.js'
import { loadConfig } from '../../src/config/load.js'
import { createExporter, type Exporter, type ExporterOptions } from '../../src/exporter.js'
import { type ParsedExposition, parseExposition } from './exposition.js'

/** Log lines a test captured, parsed. */
export class CapturedLogs extends Writable {
  readonly lines: Array<Record<string, unknown>> = []
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim()) this.lines.push(JSON.parse(line) as Record<string, unknown>)
    }
    callback()
  }
  messages(): string[] {
    return this.lines.map((line) => String(line.msg))
  }
}

export interface RunningExporter {
  readonly exporter: Exporter
  readonly config: Config
  /** `http://127.0.0.1:PORT`, or `https://` when the configuration turns TLS on. */
  readonly baseUrl: string
  readonly port: number
  readonly logs: CapturedLogs
  scrape(headers?: Record<string, string>): Promise<ParsedExposition>
  close(): Promise<void>
}

/**
 * Starts the whole exporter in-process on a free loopback port, configured from `env` exactly as
 * main.ts would (DATA_DIR defaults to a fresh temporary folder; load shedding off unless `env`
 * sets MAX_EVENT_LOOP_DELAY_MS), and waits for its first usage
 * snapshot. Logs are captured as JSON. Throws what createExporter throws (a ConfigError for a
 * bad token or TLS file).
 */
export async function startExporter(
  env: Record<string, string> = {},
  options: Omit<ExporterOptions, 'logger'> = {},
): Promise<RunningExporter> {
  const scratch = await mkdtemp(join(tmpdir(), 'objstore-exporter-test-'))
  const config = loadConfig(
    {
      DATA_DIR: join(scratch, 'data'),
      // In-process, the exporter shares its event loop with the test: the test's own synchronous
      // work (compiling an OpenAPI validator, parsing a million-series scrape) is event-loop delay
      // that load shedding would answer 503 to on a busy machine. Tests of shedding set it.
      MAX_EVENT_LOOP_DELAY_MS: '0',
      ...env,
      HOST: '127.0.0.1',
      PORT: '1',
    },
    {
      dotenvPath: false,
    },
  )
  const logs = new CapturedLogs()
  const logger = pino({ level: config.LOG_LEVEL }, logs)
  let exporter: Exporter
  try {
    exporter = await createExporter(config, { ...options, logger })
  } catch (error) {
    await rm(scratch, { recursive: true, force: true })
    throw error
  }
  await exporter.app.listen({ host: '127.0.0.1', port: 0 })
  const address = exporter.app.server.address()
  if (!address || typeof address === 'string') throw new Error('exporter did not bind a TCP port')
  const baseUrl = `${exporter.scheme}://127.0.0.1:${address.port}`
  // Until the first usage snapshot, scrapes lack the usage families; tests compare scrapes, so
  // they start from a settled exporter (an empty DATA_DIR scans in milliseconds).
  await exporter.scanner.firstSnapshot()
  return {
    exporter,
    config,
    baseUrl,
    port: address.port,
    logs,
    async scrape(headers = {}) {
      const response = await fetch(`${baseUrl}${config.METRICS_PATH}`, { headers })
      if (response.status !== 200) throw new Error(`scrape answered ${response.status}`)
      return parseExposition(await response.text())
    },
    async close() {
      await exporter.close()
      await rm(scratch, { recursive: true, force: true })
    },
  }
}

export interface RawResponse {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  /** The bytes as sent on the wire (not decompressed). */
  readonly body: Buffer
}

/** A plain HTTP GET that leaves the body as sent (fetch would decompress gzip behind our back). */
export function rawGet(url: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = get(url, { headers, timeout: 30_000 }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      )
      response.on('error', reject)
    })
    request.on('timeout', () => request.destroy(new Error(`GET ${url} timed out`)))
    request.on('error', reject)
  })
}
