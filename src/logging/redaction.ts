import { CREDENTIAL_URL_VARIABLES, SECRET_VARIABLES } from '../config/schema.js'
import { credentialsOf } from '../config/url-credentials.js'

/**
 * Fields pino censors wherever they appear in a logged object (first or second level, or as a
 * headers object): credentials a client, a request or an error might carry.
 */
export const REDACT_PATHS: readonly string[] = [
  'authorization',
  '*.authorization',
  'Authorization',
  '*.Authorization',
  'headers.authorization',
  'headers.Authorization',
  '*.headers.authorization',
  '*.headers.Authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  'token',
  '*.token',
  'authToken',
  '*.authToken',
  'password',
  '*.password',
  'secretAccessKey',
  '*.secretAccessKey',
  'sessionToken',
  '*.sessionToken',
  'credentials',
  '*.credentials',
]

export const REDACTED = '[redacted]'

/**
 * Secret values shorter than this are not scrubbed from text: replacing every "ab" in every line
 * would garble the logs; such a secret is protected by REDACT_PATHS alone.
 */
export const MIN_SCRUBBED_LENGTH = 4

/**
 * Credentials the AWS SDK reads from the environment by itself (its default chain, used when
 * S3_ACCESS_KEY_ID is empty): no configuration variable holds them, yet the process holds them
 * and an SDK error may echo them (S3 sends the access key id and the session token back in some
 * error documents).
 */
export const AMBIENT_SECRET_VARIABLES = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_SECURITY_TOKEN',
] as const

/**
 * The secret values to scrub: SECRET_VARIABLES, credentials inside URL variables, and the
 * AMBIENT_SECRET_VARIABLES of `environment`.
 */
export function secretValuesOf(
  config: Readonly<Record<string, unknown>>,
  environment: Readonly<Record<string, string | undefined>> = {},
): string[] {
  const values: string[] = []
  for (const name of SECRET_VARIABLES) {
    const value = config[name]
    if (typeof value === 'string' && value !== '') values.push(value)
  }
  for (const name of AMBIENT_SECRET_VARIABLES) {
    const value = environment[name]
    if (value !== undefined && value !== '') values.push(value)
  }
  for (const name of CREDENTIAL_URL_VARIABLES) {
    const value = config[name]
    if (typeof value !== 'string' || value === '') continue
    const { username, password } = credentialsOf(value)
    if (password !== '') values.push(password, Buffer.from(`${username}:${password}`).toString('base64'))
    // `https://TOKEN@host`: the user name is the secret.
    else if (username !== '') values.push(username, Buffer.from(`${username}:`).toString('base64'))
  }
  return values
}

/**
 * A last line of defence behind REDACT_PATHS: every serialized entry, before it reaches any
 * target, has each configured secret value replaced (as written, and as JSON escapes it). It
 * catches a secret inside a message text, an error message or a stack, where no path reaches.
 * Undefined when there is nothing to scrub, so pino skips the hook.
 */
export function createSecretScrubber(secrets: readonly string[]): ((line: string) => string) | undefined {
  const needles = new Set<string>()
  for (const secret of secrets) {
    if (secret.length < MIN_SCRUBBED_LENGTH) continue
    needles.add(secret)
    needles.add(JSON.stringify(secret).slice(1, -1))
  }
  // Longest first, so a secret containing another is replaced whole.
  const ordered = [...needles].sort((a, b) => b.length - a.length)
  if (ordered.length === 0) return undefined
  return (line) => {
    let scrubbed = line
    for (const needle of ordered)
      if (scrubbed.includes(needle)) scrubbed = scrubbed.replaceAll(needle, REDACTED)
    return scrubbed
  }
}
