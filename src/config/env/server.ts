import { Type } from '@sinclair/typebox'
import { DEFAULT_PORT } from '../default-port.js'
import { describedPattern } from '../schema-helpers.js'

/** HTTP server and exposition settings. */
export const serverEnv = {
  HOST: Type.String({
    default: '0.0.0.0',
    pattern: describedPattern(
      '^[A-Za-z0-9._:%-]+$',
      'a host name or IP address (`0.0.0.0`, `::`, `127.0.0.1`)',
    ),
    description: 'Address to listen on.',
  }),
  PORT: Type.Integer({
    default: DEFAULT_PORT,
    minimum: 1,
    maximum: 65535,
    description: `TCP port of the HTTP server (${DEFAULT_PORT}, in the exporter range 9100-9999).`,
  }),
  METRICS_PATH: Type.String({
    default: '/metrics',
    pattern: '^/[A-Za-z0-9._~/-]*$',
    description: 'Path of the Prometheus scrape endpoint.',
  }),
  METRICS_NAMESPACE: Type.String({
    default: 'objstore',
    pattern: '^[a-zA-Z_][a-zA-Z0-9_]*$',
    description: 'Prefix of every exporter metric; `minio` gives MinIO v2-compatible names.',
  }),
  METRICS_SERVER_LABEL: Type.String({
    default: '',
    maxLength: 255,
    pattern: describedPattern(
      '^[A-Za-z0-9._:@/\\[\\]-]*$',
      'a server name such as `minio-1:9000` (letters, digits and `.`, `_`, `-`, `:`, `@`, `/`, `[`, `]`)',
    ),
    description:
      'Adds `server="<value>"` to every exporter sample, as MinIO does (the `$server` variable of MinIO\'s node dashboard reads it); empty: no `server` label.',
  }),
  SCRAPE_TIMEOUT_SECONDS: Type.Number({
    default: 10,
    exclusiveMinimum: 0,
    maximum: 300,
    description:
      'Upper bound for one scrape; a smaller `X-Prometheus-Scrape-Timeout-Seconds` header sent by Prometheus wins.',
  }),
  SHUTDOWN_TIMEOUT_MS: Type.Integer({
    default: 10000,
    minimum: 0,
    maximum: 600000,
    description: 'How long in-flight requests may take to finish on SIGTERM/SIGINT.',
  }),
  MAX_CONNECTIONS: Type.Integer({
    default: 512,
    minimum: 1,
    maximum: 1000000,
    description:
      'Open client connections at most; a connection beyond it is closed at once. Keep it well below the file-descriptor limit (`ulimit -n`).',
  }),
  HEADERS_TIMEOUT_MS: Type.Integer({
    default: 10000,
    minimum: 1,
    maximum: 600000,
    description:
      "Longest a client may take to send a request's headers (at most `REQUEST_TIMEOUT_MS`), and with TLS to complete its handshake; a slower one gets 408 (a handshake: closed). Checked every second.",
  }),
  REQUEST_TIMEOUT_MS: Type.Integer({
    default: 30000,
    minimum: 1,
    maximum: 600000,
    description: 'Longest a client may take to send a whole request; a slower one gets 408 and is closed.',
  }),
  KEEP_ALIVE_TIMEOUT_MS: Type.Integer({
    default: 72000,
    minimum: 1,
    maximum: 600000,
    description:
      'How long an idle keep-alive connection is kept open after an answer, waiting for the next request (longer than a 60 s scrape interval, so Prometheus reuses it).',
  }),
  SOCKET_TIMEOUT_MS: Type.Integer({
    default: 30000,
    minimum: 1,
    maximum: 600000,
    description:
      'A connection on which no byte moves either way for this long while a request is under way is destroyed: a client that stops reading its answer cannot hold it forever. At least `SCRAPE_TIMEOUT_SECONDS` + 5 s is used, so a slow scrape is never cut.',
  }),
  MAX_EVENT_LOOP_DELAY_MS: Type.Integer({
    default: 1000,
    minimum: 0,
    maximum: 600000,
    description: 'Event-loop delay above which requests are answered 503 with Retry-After (0 disables).',
  }),
  BUCKET_METRICS: Type.String({
    default: '',
    pattern: describedPattern(
      '^[a-z_]*(,[a-z_]+)*$',
      'a comma-separated list of lowercase group names (`usage,sizes`)',
    ),
    description:
      'Per-bucket family groups to emit (see docs/cardinality.md for the groups and their series per bucket). Empty or `default`: usage, versions, quota, sizes, times, storage_class, multipart and scan; `all`: every group; `default,age,prefixes`: the default ones and those named. Cluster-wide families are always emitted.',
  }),
  BUCKETS_TOP_N: Type.Integer({
    default: 0,
    minimum: 0,
    maximum: 10000000,
    description:
      'Itemise only the N buckets with the most bytes; the others are summed into `bucket="_other"` (additive figures only). 0: every bucket.',
  }),
  MAX_SERIES: Type.Integer({
    default: 0,
    minimum: 0,
    maximum: 1000000000,
    description:
      'Ceiling on the series of the usage snapshot (cluster totals and per-bucket series): buckets are written largest first until the next would pass it; the rest are left out, logged and counted. 0: no ceiling.',
  }),
}
