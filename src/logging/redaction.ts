import { CREDENTIAL_URL_VARIABLES, SECRET_VARIABLES } from '../config/schema.js'
import { credentialsOf } from '../config/url-credentials.js'
import { createSecretRedactor, type SecretRedactor } from './secret-redactor.js'

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

/**
 * Credentials the AWS SDK reads from the environment by itself (its default chain, used when
 * S3_ACCESS_KEY_ID is empty): no configuration variable holds them, yet the process holds them
 * and an SDK error may echo them (S3 sends the access key id and the session token back in some
 * error documents).
 */
const AMBIENT_SECRET_VARIABLES = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_SECURITY_TOKEN',
] as const

/**
 * The secret values to scrub: SECRET_VARIABLES, credentials inside URL variables, and the
 * AMBIENT_SECRET_VARIABLES of `environment`.
 */
function secretValuesOf(
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
 * The redactor of every output, built once from `secretValuesOf`. In the logger it is a last line
 * of defence behind REDACT_PATHS: every serialized entry, before it reaches any target, has each
 * secret replaced in every form secret-forms.ts lists (as written, URL-encoded, JSON-escaped, hex,
 * base64 and base64url). It catches a secret inside a message text, an error message or a stack,
 * where no path reaches.
 */
export function secretRedactorOf(
  config: Readonly<Record<string, unknown>>,
  environment: Readonly<Record<string, string | undefined>> = {},
): SecretRedactor {
  return createSecretRedactor(secretValuesOf(config, environment))
}
