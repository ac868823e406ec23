import type { Command } from 'commander'
import type { Logger } from 'pino'
import { groupNotGivenWarning, unusedGroupWarning } from '../config/group-settings.js'
import { ConfigError, type LoadedConfig, loadConfiguration } from '../config/load.js'
import { shownValue } from '../config/shown-value.js'

/**
 * The command-line flags that mirror environment variables, node_exporter style. The environment
 * (and the .env file) stays the main interface; a flag wins over both for one run. Secrets have no
 * flag: a command line is visible to every user of the host (`ps`).
 */
interface ConfigFlag {
  /** Commander's spelling, with its value placeholder. */
  readonly flag: string
  /** The attribute commander stores the value under. */
  readonly attribute: string
  readonly description: string
  /** The variables it sets, from its value. */
  readonly variables: (value: string) => Readonly<Record<string, string>> | string
  /** Only for commands that serve HTTP: `scan --once` lists no flag that would do nothing. */
  readonly web?: true
}

const single = (name: string) => (value: string) => ({ [name]: value })

const CONFIG_FLAGS: readonly ConfigFlag[] = [
  {
    flag: '--web.listen-address <[host]:port>',
    attribute: 'web.listenAddress',
    description: 'address to listen on (HOST and PORT); `:9786` keeps HOST',
    variables: listenAddress,
    web: true,
  },
  {
    flag: '--web.telemetry-path <path>',
    attribute: 'web.telemetryPath',
    description: 'path of the metrics (METRICS_PATH)',
    variables: single('METRICS_PATH'),
    web: true,
  },
  {
    flag: '--web.config.file <path>',
    attribute: 'web.config.file',
    description: 'Prometheus web configuration file: TLS, basic auth, headers (WEB_CONFIG_FILE)',
    variables: single('WEB_CONFIG_FILE'),
    web: true,
  },
  {
    flag: '--source <name>',
    attribute: 'source',
    description: 'where bucket figures come from: fs, s3 or rgw (BUCKETS_SOURCE)',
    variables: single('BUCKETS_SOURCE'),
  },
  {
    flag: '--data-dir <dir>',
    attribute: 'dataDir',
    description: 'the fs source: one folder per bucket (DATA_DIR)',
    variables: single('DATA_DIR'),
  },
  {
    flag: '--drives <paths>',
    attribute: 'drives',
    description: 'comma-separated drive paths, `{1...4}` ranges (DRIVES)',
    variables: single('DRIVES'),
  },
  {
    flag: '--log.format <format>',
    attribute: 'log.format',
    description: 'console format: logfmt, json, pretty, quiet or auto (LOG_MODE)',
    variables: single('LOG_MODE'),
  },
  {
    flag: '--log.level <level>',
    attribute: 'log.level',
    description: 'trace, debug, info, warn, error, fatal or silent (LOG_LEVEL)',
    variables: single('LOG_LEVEL'),
  },
]

/** `host:port`, `[v6]:port` or `:port` as HOST and PORT; a line saying what was expected otherwise. */
function listenAddress(value: string): Readonly<Record<string, string>> | string {
  const match = /^(?:\[([^\]]*)\]|([^:[\]]*)):([^:]*)$/.exec(value.trim())
  if (!match)
    return `--web.listen-address=${shownValue(value)}: expected [host]:port, like 127.0.0.1:9786, [::1]:9786 or :9786`
  const host = match[1] ?? match[2] ?? ''
  return host === '' ? { PORT: match[3] ?? '' } : { HOST: host, PORT: match[3] ?? '' }
}

/** Adds the configuration flags (the web ones only where `web`) and `--env-file` to a subcommand. */
export function withConfigFlags(command: Command, { web = true }: { web?: boolean } = {}): Command {
  for (const { flag, description, web: forWeb } of CONFIG_FLAGS)
    if (web || !forWeb) command.option(flag, description)
  return command.option('--env-file <path>', 'dotenv file read when present (default .env)')
}

/**
 * The configuration serve uses, from the environment, the .env file and `options` (the parsed
 * flags): the same loader, checks and error lines, each flag named where its value was wrong.
 */
export function loadWithFlags(
  env: Record<string, string | undefined>,
  options: Readonly<Record<string, unknown>>,
): LoadedConfig {
  const overrides = new Map<string, { text: string; flag: string }>()
  const problems: string[] = []
  for (const { flag, attribute, variables } of CONFIG_FLAGS) {
    const value = options[attribute]
    if (typeof value !== 'string') continue
    const set = variables(value)
    const name = flag.split(' ')[0] as string
    if (typeof set === 'string') problems.push(set)
    else for (const [variable, text] of Object.entries(set)) overrides.set(variable, { text, flag: name })
  }
  if (problems.length > 0) throw new ConfigError(problems)
  const envFile = typeof options.envFile === 'string' ? options.envFile : '.env'
  return loadConfiguration(env, { dotenvPath: envFile, overrides })
}

/** One line per bad variable, no stack trace, exit 2: this is the operator's mistake, not ours. */
export function refuseConfiguration(error: unknown): never {
  if (!(error instanceof ConfigError)) throw error
  for (const line of error.lines) process.stderr.write(`objstore-exporter: invalid configuration: ${line}\n`)
  process.exit(2)
}

/** Serve's warning when variables of another source are set (check-config prints the same). */
export function otherSourceWarning(variables: readonly string[], source: string): string {
  return `${variables.join(', ')} set, but BUCKETS_SOURCE=${source} reads none of them; is BUCKETS_SOURCE the one meant?`
}

/**
 * Logs what loading found suspicious, once the logger exists: unknown variables, variables of
 * another source, settings of a BUCKET_METRICS group left out or not given by the source, groups
 * named that the source cannot give. Serve and `scan --once` both log
 * them (check-config prints the same lines to stderr).
 */
export function logConfigWarnings(logger: Logger, loaded: LoadedConfig): void {
  const { config } = loaded
  for (const { variable, closest, origin } of loaded.warnings) {
    logger.warn(
      { variable, closest, origin },
      `unknown variable ${variable} ignored; did you mean ${closest}?`,
    )
  }
  if (loaded.otherSourceVariables.length > 0) {
    logger.warn(
      { variables: loaded.otherSourceVariables, source: config.BUCKETS_SOURCE },
      otherSourceWarning(loaded.otherSourceVariables, config.BUCKETS_SOURCE),
    )
  }
  // The operator's first hour: a setting that silently does nothing is a trap.
  for (const unused of loaded.unusedGroupSettings) {
    logger.warn({ variables: unused.variables, group: unused.group }, unusedGroupWarning(unused, config))
  }
  for (const notGiven of loaded.groupsNotGiven) {
    logger.warn(
      { group: notGiven.group, source: config.BUCKETS_SOURCE },
      groupNotGivenWarning(notGiven, config.BUCKETS_SOURCE),
    )
  }
}
