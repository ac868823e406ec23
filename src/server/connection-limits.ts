import type { Server } from 'node:net'
import type { Logger } from 'pino'
import type { Config } from '../config/load.js'

/**
 * How often Node checks the header and request deadlines. Its default, 30 s, let a connection
 * sending its headers a byte at a time live up to 90 s with the old 60 s headers timeout.
 */
const DEADLINE_CHECK_INTERVAL_MS = 1000
/** What the socket timeout keeps above the scrape timeout: a scrape waiting on collectors sends nothing. */
const SCRAPE_MARGIN_MS = 5000
/** At most one "connection limit reached" line per this window; the next one counts the rest. */
const DROP_LINE_WINDOW_MS = 60_000

export interface ConnectionLimits {
  /** Inactivity timeout of a socket while a request is under way (Fastify's `connectionTimeout`). */
  readonly socketTimeoutMs: number
  readonly keepAliveTimeoutMs: number
  /** With TLS: how long a client may take over its handshake (Node's default is 120 s). */
  readonly handshakeTimeoutMs: number
  /** Options only http(s).createServer takes (the deadline check interval cannot be set later). */
  readonly nodeOptions: {
    readonly headersTimeout: number
    readonly requestTimeout: number
    readonly connectionsCheckingInterval: number
  }
  /** Caps connections on the listening server and logs (rate-limited) when new ones are closed. */
  apply(server: Server, logger: Logger): void
}

/**
 * What bounds a client's hold on the server: how many connections, and how long each may idle,
 * dawdle over its request or stop reading its answer (see MAX_CONNECTIONS and the *_TIMEOUT_MS
 * variables). Together with load shedding, which needs no file descriptor, this keeps a flood of
 * connections from taking the process down.
 */
export function connectionLimit(config: Config): ConnectionLimits {
  const requestTimeout = config.REQUEST_TIMEOUT_MS
  // Node refuses a headers timeout longer than the request timeout.
  const headersTimeout = Math.min(config.HEADERS_TIMEOUT_MS, requestTimeout)
  return {
    socketTimeoutMs: Math.max(
      config.SOCKET_TIMEOUT_MS,
      config.SCRAPE_TIMEOUT_SECONDS * 1000 + SCRAPE_MARGIN_MS,
    ),
    keepAliveTimeoutMs: config.KEEP_ALIVE_TIMEOUT_MS,
    handshakeTimeoutMs: headersTimeout,
    nodeOptions: {
      headersTimeout,
      requestTimeout,
      connectionsCheckingInterval: DEADLINE_CHECK_INTERVAL_MS,
    },
    apply(server, logger) {
      server.maxConnections = config.MAX_CONNECTIONS
      let dropped = 0
      let window: NodeJS.Timeout | undefined
      const report = () => {
        window = undefined
        if (dropped === 0) return
        logger.warn({ maxConnections: config.MAX_CONNECTIONS, dropped }, 'connection limit reached')
        dropped = 0
        window = setTimeout(report, DROP_LINE_WINDOW_MS)
        window.unref()
      }
      server.on('drop', () => {
        dropped++
        if (window === undefined) report()
      })
      server.on('close', () => clearTimeout(window))
    },
  }
}
