import pino from 'pino'
import { groupNotGivenWarning, unusedGroupWarning } from '../config/group-settings.js'
import type { LoadedConfig } from '../config/load.js'
import { CREDENTIAL_URL_VARIABLES, SECRET_VARIABLES } from '../config/schema.js'
import { withoutCredentials } from '../config/url-credentials.js'
import { loadServerSecurity } from '../security/server-security.js'
import { VERSION } from '../version.js'
import { loadWithFlags, otherSourceWarning, refuseConfiguration } from './flags.js'

/**
 * `objstore-exporter check-config`: the checks serve makes before it listens (every variable, the
 * rules between them, the token and TLS files), then the effective configuration on stdout, one
 * `NAME=value` a line with where it came from, secrets masked. Refused: serve's lines, exit 2.
 */
export async function checkConfig(options: Readonly<Record<string, unknown>>): Promise<void> {
  let loaded: LoadedConfig
  try {
    loaded = loadWithFlags(process.env, options)
    // Token and TLS files are read, parsed and matched as serve does, then let go.
    const security = await loadServerSecurity(loaded.config, pino({ level: 'silent' }))
    await security.close()
  } catch (error) {
    refuseConfiguration(error)
  }
  for (const { variable, closest, origin } of loaded.warnings)
    process.stderr.write(
      `objstore-exporter: warning: unknown variable ${variable} ignored (${origin}); did you mean ${closest}?\n`,
    )
  if (loaded.otherSourceVariables.length > 0)
    process.stderr.write(
      `objstore-exporter: warning: ${otherSourceWarning(loaded.otherSourceVariables, loaded.config.BUCKETS_SOURCE)}\n`,
    )
  for (const unused of loaded.unusedGroupSettings)
    process.stderr.write(`objstore-exporter: warning: ${unusedGroupWarning(unused, loaded.config)}\n`)
  for (const notGiven of loaded.groupsNotGiven)
    process.stderr.write(
      `objstore-exporter: warning: ${groupNotGivenWarning(notGiven, loaded.config.BUCKETS_SOURCE)}\n`,
    )
  process.stdout.write(describeConfiguration(loaded))
}

/** The effective configuration as `NAME=value  # origin` lines, sorted by name, secrets masked. */
function describeConfiguration(loaded: LoadedConfig): string {
  const lines = [`# objstore-exporter ${VERSION}: configuration valid`]
  const names = Object.keys(loaded.effective).sort()
  const shown = names.map((name) => `${name}=${shownValue(name, loaded.effective[name])}`)
  const width = Math.max(...shown.map((line) => line.length))
  names.forEach((name, index) => {
    lines.push(`${(shown[index] as string).padEnd(width)}  # ${loaded.origins.get(name) ?? 'default'}`)
  })
  lines.push(`# drives watched: ${loaded.config.DRIVES.length ? loaded.config.DRIVES.join(', ') : 'none'}`)
  return `${lines.join('\n')}\n`
}

function shownValue(name: string, value: string | number | boolean | undefined): string {
  const text = String(value ?? '')
  if (SECRET_VARIABLES.has(name)) return text === '' ? '' : '(set, hidden)'
  return CREDENTIAL_URL_VARIABLES.has(name) && text !== '' ? withoutCredentials(text) : text
}
