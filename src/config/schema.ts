import { type Static, Type } from '@sinclair/typebox'
import {
  LOGGING_CREDENTIAL_URL_VARIABLES,
  LOGGING_SECRET_VARIABLES,
  loggingEnv,
} from '../logging/settings.js'
import { SOURCE_CREDENTIAL_URL_VARIABLES, SOURCE_SECRET_VARIABLES, SOURCES_ENV } from '../sources/list.js'
import { drivesEnv } from './env/drives.js'
import { eventsEnv } from './env/events.js'
import { prefixesEnv } from './env/prefixes.js'
import { pricesEnv } from './env/prices.js'
import { scannerEnv } from './env/scanner.js'
import { securityEnv } from './env/security.js'
import { serverEnv } from './env/server.js'

/**
 * Every environment variable the exporter reads, declared once: validation, defaults, the
 * TypeScript type and docs/configuration.md's table all derive from this object. Each concern
 * keeps its variables in its own file under env/; each usage source in its folder, gathered by the
 * source list (src/sources/list.ts).
 */
export const envSchema = Type.Object({
  ...serverEnv,
  ...securityEnv,
  ...eventsEnv,
  ...drivesEnv,
  ...loggingEnv,
  ...scannerEnv,
  ...prefixesEnv,
  ...pricesEnv,
  ...SOURCES_ENV,
})

export type Env = Static<typeof envSchema>

/** Variables whose values are never echoed: not in error messages, logs or pages. */
export const SECRET_VARIABLES: ReadonlySet<string> = new Set<string>([
  'METRICS_AUTH_TOKEN',
  'EVENTS_AUTH_TOKEN',
  ...LOGGING_SECRET_VARIABLES,
  ...SOURCE_SECRET_VARIABLES,
])

/** URL variables that may carry credentials: shown only through `withoutCredentials`. */
export const CREDENTIAL_URL_VARIABLES: ReadonlySet<string> = new Set<string>([
  ...LOGGING_CREDENTIAL_URL_VARIABLES,
  ...SOURCE_CREDENTIAL_URL_VARIABLES,
])

/**
 * Variables whose loss weakens the server's protection: a near-miss of one of these (METRICS_TOKEN,
 * TLS_CERT) stops start-up instead of being ignored with a warning.
 */
export const GUARDED_VARIABLES: ReadonlySet<string> = new Set<string>([
  ...Object.keys(securityEnv),
  ...SECRET_VARIABLES,
])
