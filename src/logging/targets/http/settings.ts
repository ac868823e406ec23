import { type Static, type TObject, Type } from '@sinclair/typebox'
import { TOKEN_PATTERN } from '../../../config/env/security.js'
import { shownValue } from '../../../config/shown-value.js'
import { credentialsOf, withoutCredentials } from '../../../config/url-credentials.js'

/** The HTTP log target: where batches go, how big they are and how long delivery may take. */
export const logHttpEnv = {
  LOG_HTTP_ENDPOINT: Type.String({
    default: '',
    description:
      'URL the HTTP log target POSTs batches to (NDJSON); required when `LOG_TARGETS` includes `http`. User info in the URL is sent as Basic auth and never logged.',
  }),
  LOG_HTTP_AUTH_TOKEN: Type.String({
    default: '',
    // Anything else cannot travel in a header and would fail every batch.
    pattern: TOKEN_PATTERN,
    description: 'Bearer token sent as `Authorization: Bearer <token>` with every batch.',
  }),
  LOG_HTTP_BATCH_SIZE: Type.Integer({
    default: 100,
    minimum: 1,
    maximum: 10000,
    description: 'Entries per POST; a full batch is sent at once. At most `LOG_HTTP_QUEUE_SIZE`.',
  }),
  LOG_HTTP_FLUSH_INTERVAL_MS: Type.Integer({
    default: 1000,
    minimum: 1,
    maximum: 3600000,
    description: 'Longest an entry waits for its batch to fill before what is queued is sent anyway.',
  }),
  LOG_HTTP_QUEUE_SIZE: Type.Integer({
    default: 10000,
    minimum: 1,
    maximum: 1000000,
    description:
      'Entries held while the receiver is slow or down (in-flight batch included); beyond it the oldest are dropped and counted.',
  }),
  LOG_HTTP_TIMEOUT_MS: Type.Integer({
    default: 5000,
    minimum: 1,
    maximum: 600000,
    description: 'Longest one POST may take (connect, headers and body) before it is abandoned and retried.',
  }),
}

export type LogHttpSettings = Static<TObject<typeof logHttpEnv>>

/** The endpoint's shape and rules spanning the HTTP target's variables; URLs shown without credentials. */
export function logHttpProblems(env: LogHttpSettings): string[] {
  const problems: string[] = []
  const endpoint = env.LOG_HTTP_ENDPOINT
  // An empty endpoint is judged by requiredWhenOn in ./index.ts (required when the target is on).
  if (endpoint !== '' && !isHttpUrl(endpoint)) {
    problems.push(
      `LOG_HTTP_ENDPOINT=${shownValue(withoutCredentials(endpoint))}: expected an http:// or https:// URL`,
    )
  } else if (endpoint !== '' && env.LOG_HTTP_AUTH_TOKEN !== '') {
    const { username, password } = credentialsOf(endpoint)
    if (username !== '' || password !== '') {
      problems.push(
        'LOG_HTTP_ENDPOINT: has user info in the URL and LOG_HTTP_AUTH_TOKEN is set too; use one way to authenticate',
      )
    }
  }
  if (env.LOG_HTTP_BATCH_SIZE > env.LOG_HTTP_QUEUE_SIZE) {
    problems.push(
      `LOG_HTTP_BATCH_SIZE=${env.LOG_HTTP_BATCH_SIZE}: expected at most LOG_HTTP_QUEUE_SIZE (${env.LOG_HTTP_QUEUE_SIZE})`,
    )
  }
  return problems
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== ''
  } catch {
    return false
  }
}
