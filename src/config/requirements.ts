import type { Env } from './schema.js'

/**
 * A variable that must be set in some mode. An empty variable means unset (so defaults apply),
 * which is why a required one must be named when it is empty rather than silently defaulted.
 */
export interface Requirement {
  readonly variable: keyof Env
  /** The mode, in words, for the error line: "required when <when>". */
  readonly when: string
  readonly applies: (env: Env) => boolean
  /** An environment that puts the exporter in that mode; the configuration tests sweep these. */
  readonly example: Readonly<Record<string, string>>
}

/** Pairs of which at most one may be set. */
export type Exclusion = readonly [keyof Env, keyof Env]

export const REQUIREMENTS: readonly Requirement[] = [
  {
    variable: 'TLS_KEY_FILE',
    when: 'TLS_CERT_FILE is set',
    applies: (env) => env.TLS_CERT_FILE !== '',
    example: { TLS_CERT_FILE: '/tls/tls.crt' },
  },
  {
    variable: 'TLS_CERT_FILE',
    when: 'TLS_KEY_FILE is set',
    applies: (env) => env.TLS_KEY_FILE !== '',
    example: { TLS_KEY_FILE: '/tls/tls.key' },
  },
  {
    variable: 'TLS_CERT_FILE',
    when: 'TLS_CLIENT_CA_FILE is set (mutual TLS needs TLS)',
    applies: (env) => env.TLS_CLIENT_CA_FILE !== '',
    example: { TLS_CLIENT_CA_FILE: '/tls/ca.crt' },
  },
  {
    variable: 'S3_SECRET_ACCESS_KEY',
    when: 'S3_ACCESS_KEY_ID is set',
    applies: (env) => env.S3_ACCESS_KEY_ID !== '',
    example: { S3_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE' },
  },
  {
    variable: 'S3_ACCESS_KEY_ID',
    when: 'S3_SECRET_ACCESS_KEY is set',
    applies: (env) => env.S3_SECRET_ACCESS_KEY !== '',
    example: { S3_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
  },
  {
    variable: 'S3_ENDPOINT',
    when: 'BUCKETS_SOURCE=rgw (the RGW endpoint; AWS S3 has no RGW admin API)',
    applies: (env) => env.BUCKETS_SOURCE === 'rgw',
    example: { BUCKETS_SOURCE: 'rgw' },
  },
]

export const EXCLUSIONS: readonly Exclusion[] = [['METRICS_AUTH_TOKEN', 'METRICS_AUTH_TOKEN_FILE']]

/** One line per unmet requirement or clashing pair; each names the variable to fix first. */
export function checkRequirements(env: Env): string[] {
  const lines = new Map<string, string>()
  for (const requirement of REQUIREMENTS) {
    const value = env[requirement.variable]
    if (requirement.applies(env) && (value === '' || value === undefined) && !lines.has(requirement.variable))
      lines.set(requirement.variable, `${requirement.variable}: required when ${requirement.when}`)
  }
  for (const [first, second] of EXCLUSIONS) {
    if (env[first] !== '' && env[second] !== '')
      lines.set(second, `${second}: set either ${first} or ${second}, not both`)
  }
  return [...lines.values()]
}
