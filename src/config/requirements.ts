import { SOURCE_REQUIREMENTS } from '../sources/list.js'
import type { Env } from './schema.js'
import type { Requirement as GenericRequirement } from './schema-helpers.js'

/** A variable that must be set in some mode (see schema-helpers.ts). */
export type Requirement = GenericRequirement<Env>

/** Pairs of which at most one may be set. */
export type Exclusion = readonly [keyof Env, keyof Env]

/** TLS, then each usage source's own (declared in its folder). */
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
  ...SOURCE_REQUIREMENTS,
  // The s3 source's inventory settings: here, typed on the whole environment, since the source
  // list's requirements are typed on the variables every source shares.
  {
    variable: 'S3_INVENTORY_DESTINATION',
    when: 'S3_INVENTORY_CONFIG_ID is set',
    applies: (env) => env.S3_INVENTORY_CONFIG_ID !== '',
    example: { BUCKETS_SOURCE: 's3', S3_INVENTORY_CONFIG_ID: 'daily' },
  },
  {
    variable: 'S3_INVENTORY_DESTINATION',
    when: 'S3_INVENTORY_MISSING is skip',
    applies: (env) => env.S3_INVENTORY_MISSING === 'skip',
    example: { BUCKETS_SOURCE: 's3', S3_INVENTORY_MISSING: 'skip' },
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
