import { readFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { parseDocument } from 'yaml'
import { type Config, ConfigError } from '../config/load.js'
import { BCRYPT_HASH } from './basic-auth.js'
import { readFailure } from './file-poller.js'
import type { TlsFiles } from './tls-material.js'
import { StrictReader } from './web-config-reader.js'
import { readTlsSection } from './web-config-tls.js'

/** What the Prometheus web configuration file (WEB_CONFIG_FILE, `--web.config.file`) asks for. */
export interface WebConfig {
  /** Set when `tls_server_config` sets anything: serve HTTPS with these files. */
  readonly tls: TlsFiles | undefined
  /** `basic_auth_users`: names and bcrypt hashes; empty when no basic auth is asked. */
  readonly users: ReadonlyMap<string, string>
  /** `http_server_config.headers`, added to every answer (header names as the format spells them). */
  readonly headers: Readonly<Record<string, string>>
}

/**
 * The headers the format allows and the values it allows for each (undefined: any), as
 * exporter-toolkit checks them: the list is closed on purpose, so files mean the same everywhere.
 */
const HEADERS: Readonly<Record<string, readonly string[] | undefined>> = {
  'Strict-Transport-Security': undefined,
  'X-Content-Type-Options': ['nosniff'],
  'X-Frame-Options': ['deny', 'sameorigin'],
  'X-XSS-Protection': undefined,
  'Content-Security-Policy': undefined,
}

const TOP_KEYS = ['tls_server_config', 'http_server_config', 'basic_auth_users']
const UNSUPPORTED_TOP_KEYS = {
  rate_limit:
    'not supported by objstore-exporter; it sheds load by event-loop delay instead (MAX_EVENT_LOOP_DELAY_MS)',
}

type SecurityVariables = Pick<
  Config,
  'METRICS_AUTH_TOKEN' | 'METRICS_AUTH_TOKEN_FILE' | 'TLS_CERT_FILE' | 'TLS_KEY_FILE' | 'TLS_CLIENT_CA_FILE'
>

/**
 * Reads and checks the file once, at start. Every problem is a line
 * `WEB_CONFIG_FILE="path": key: reason` (a ConfigError: exit 2 before listening). TLS and
 * authentication each come from one place: the file refuses to set either when the variables
 * already do, rather than guess which should win.
 */
export async function loadWebConfig(path: string, variables: SecurityVariables): Promise<WebConfig> {
  const within = `WEB_CONFIG_FILE="${path}"`
  const text = await readFile(path, 'utf8').catch((error: unknown) => {
    throw new ConfigError([`${within}: ${readFailure(error)}`])
  })
  const document = parseDocument(text, { uniqueKeys: true, prettyErrors: false })
  const syntax = document.errors[0]
  if (syntax) {
    const line = text.slice(0, syntax.pos[0]).split('\n').length
    throw new ConfigError([`${within}: not valid YAML at line ${line} (${syntax.message})`])
  }
  let content: unknown
  try {
    content = document.toJS({ maxAliasCount: 100 })
  } catch (error) {
    throw new ConfigError([`${within}: not valid YAML (${(error as Error).message})`])
  }
  const reader = new StrictReader()
  const top = reader.mapping(content, '', TOP_KEYS, UNSUPPORTED_TOP_KEYS)
  const tls = readTlsSection(reader, top.tls_server_config, path, dirname(resolve(path)))
  const headers = readHeaders(reader, top.http_server_config)
  const users = readUsers(reader, top.basic_auth_users)
  // Any key of the section counts: versions or ciphers meant for the variables' TLS would
  // otherwise be ignored without a word.
  if (tls || isNonEmptyMapping(top.tls_server_config)) {
    const set = (['TLS_CERT_FILE', 'TLS_KEY_FILE', 'TLS_CLIENT_CA_FILE'] as const).filter(
      (name) => variables[name],
    )
    if (set.length > 0)
      reader.refuse(
        'tls_server_config',
        `set here while ${set.join(', ')} set TLS too; configure TLS in one place`,
      )
  }
  if (users.size > 0) {
    const set = (['METRICS_AUTH_TOKEN', 'METRICS_AUTH_TOKEN_FILE'] as const).filter((name) => variables[name])
    if (set.length > 0)
      reader.refuse(
        'basic_auth_users',
        `basic auth is set here and a bearer token by ${set.join(', ')}; use one authentication`,
      )
  }
  if (reader.problems.length > 0) throw new ConfigError(reader.problems.map((line) => `${within}: ${line}`))
  return { tls, users, headers }
}

function isNonEmptyMapping(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.keys(value).length > 0
}

function readHeaders(reader: StrictReader, value: unknown): Record<string, string> {
  const section = reader.mapping(value, 'http_server_config', ['http2', 'headers'])
  // Accepted as the format allows, but HTTP/2 is not served: Prometheus scrapes over HTTP/1.1 too.
  reader.boolean(section.http2, 'http_server_config.http2')
  const headers: Record<string, string> = {}
  const given = reader.anyMapping(section.headers, 'http_server_config.headers') ?? {}
  for (const [name, raw] of Object.entries(given)) {
    const at = `http_server_config.headers.${name}`
    if (!(name in HEADERS)) {
      reader.refuse(at, `this header cannot be set; expected one of ${Object.keys(HEADERS).join(', ')}`)
      continue
    }
    const text = reader.string(raw, at)
    // Blank: not set (exporter-toolkit's rule); the exporter's own header of that name stays.
    if (text === undefined) continue
    const allowed = HEADERS[name]
    if (allowed && !allowed.includes(text))
      reader.refuse(at, `${JSON.stringify(text)} is not one of ${allowed.join(', ')}`)
    else if (/[^\t\x20-\x7e]/.test(text)) reader.refuse(at, 'only printable ASCII may be sent in a header')
    else headers[name] = text
  }
  return headers
}

function readUsers(reader: StrictReader, value: unknown): Map<string, string> {
  const users = new Map<string, string>()
  const given = reader.anyMapping(value, 'basic_auth_users') ?? {}
  for (const [user, hash] of Object.entries(given)) {
    const at = `basic_auth_users.${user}`
    // The hash is never quoted: it is as secret as exporter-toolkit's <secret> type says.
    if (typeof hash !== 'string' || !BCRYPT_HASH.test(hash))
      reader.refuse(at, 'expected a bcrypt hash ($2y$10$... as htpasswd -nBC 10 writes it)')
    else if (user.includes(':')) reader.refuse(at, 'a user name cannot hold a colon (RFC 7617)')
    else users.set(user, hash)
  }
  return users
}
