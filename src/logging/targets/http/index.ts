import { withoutCredentials } from '../../../config/url-credentials.js'
import { defineLogTarget } from '../types.js'
import { createHttpTarget } from './delivery.js'
import { logHttpEnv, logHttpProblems } from './settings.js'

/**
 * Batches of NDJSON POSTed to LOG_HTTP_ENDPOINT. Its delivery counters (stats) are the series
 * `target="http"` of the logger_* families (collectors/logger.ts reads them at scrape time).
 */
export const httpTarget = defineLogTarget({
  name: 'http',
  summary: 'batches POSTed to `LOG_HTTP_ENDPOINT`',
  env: logHttpEnv,
  secretVariables: ['LOG_HTTP_AUTH_TOKEN'],
  credentialUrlVariables: ['LOG_HTTP_ENDPOINT'],
  requiredWhenOn: ['LOG_HTTP_ENDPOINT'],
  problems: logHttpProblems,
  create({ settings, level, options, report }) {
    if (level === 'silent') return undefined
    const target = createHttpTarget({
      endpoint: settings.LOG_HTTP_ENDPOINT,
      authToken: settings.LOG_HTTP_AUTH_TOKEN,
      level,
      batchSize: settings.LOG_HTTP_BATCH_SIZE,
      flushIntervalMs: settings.LOG_HTTP_FLUSH_INTERVAL_MS,
      queueSize: settings.LOG_HTTP_QUEUE_SIZE,
      timeoutMs: settings.LOG_HTTP_TIMEOUT_MS,
      report,
      ...(options.retryBackoff ? { backoff: options.retryBackoff } : {}),
    })
    // What the start-up line says about this target.
    return { ...target, banner: { logEndpoint: withoutCredentials(settings.LOG_HTTP_ENDPOINT) } }
  },
})
