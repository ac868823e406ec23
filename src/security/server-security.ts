import { readFile } from 'node:fs/promises'
import type { SecureContextOptions, Server as TlsServer } from 'node:tls'
import type { Logger } from 'pino'
import { type Config, ConfigError } from '../config/load.js'
import { shownValue } from '../config/shown-value.js'
import type { RequestAuthenticator } from './access.js'
import { BasicAuthUsers } from './basic-auth.js'
import { BcryptChecker } from './bcrypt-checker.js'
import { BearerToken, bearerAuthenticator, tokenFromFile } from './bearer-token.js'
import { FilePoller, readFailure } from './file-poller.js'
import {
  parseTlsMaterial,
  readTlsFiles,
  type TlsFiles,
  type TlsMaterial,
  tlsFileProblem,
  tlsPaths,
  validityProblem,
} from './tls-material.js'
import { loadWebConfig, type WebConfig } from './web-config.js'

/** setTimeout's longest delay (about 24.8 days); a longer wait is taken in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1

/** What the HTTPS server is constructed with. */
export type HttpsOptions = SecureContextOptions & { requestCert: boolean; rejectUnauthorized: boolean }

/** Access control and transport security, loaded from the configuration and its files. */
export interface ServerSecurity {
  /** Set when TLS is on. */
  readonly https: HttpsOptions | undefined
  /** Set when credentials are required: a bearer token, or the web configuration file's users. */
  readonly authenticator: RequestAuthenticator | undefined
  /** The web configuration file's `http_server_config.headers`, added to every answer. */
  readonly headers: Readonly<Record<string, string>>
  /** Starts re-reading the token and TLS files; `server` is the HTTPS server when TLS is on. */
  watch(server: TlsServer | undefined): void
  /** Stops re-reading. */
  close(): Promise<void>
}

type SecurityConfig = Pick<
  Config,
  | 'METRICS_AUTH_TOKEN'
  | 'METRICS_AUTH_TOKEN_FILE'
  | 'TLS_CERT_FILE'
  | 'TLS_KEY_FILE'
  | 'TLS_CLIENT_CA_FILE'
  | 'WEB_CONFIG_FILE'
  | 'SECURITY_FILES_RELOAD_SECONDS'
>

/**
 * Reads the web configuration file, the token file and the TLS files once, at start: anything
 * unreadable, empty, malformed or mismatched is a ConfigError (one line each, exit 2). Later
 * changes to the token and TLS files (the web configuration file's included) are applied by
 * watch(); a bad later version is logged and the one in use stays, so a botched rotation never
 * takes the exporter down. The web configuration file itself is read at start only.
 */
export async function loadServerSecurity(config: SecurityConfig, logger: Logger): Promise<ServerSecurity> {
  const intervalMs = config.SECURITY_FILES_RELOAD_SECONDS * 1000
  const pollers: FilePoller[] = []
  const onProblem = (message: string) =>
    logger.warn({ reason: message }, 'cannot read a security file again; what was read before stays in use')

  let token: BearerToken | undefined
  let tokenFileContent: Buffer | undefined
  if (config.METRICS_AUTH_TOKEN !== '') token = new BearerToken(config.METRICS_AUTH_TOKEN)
  const tokenFile = config.METRICS_AUTH_TOKEN_FILE
  if (tokenFile !== '') {
    tokenFileContent = await readFile(tokenFile).catch((error: unknown) => {
      throw new ConfigError([`METRICS_AUTH_TOKEN_FILE=${shownValue(tokenFile)}: ${readFailure(error)}`])
    })
    token = new BearerToken(tokenFromFile(tokenFile, tokenFileContent))
  }

  const web = config.WEB_CONFIG_FILE === '' ? undefined : await loadWebConfig(config.WEB_CONFIG_FILE, config)
  const tlsFiles: TlsFiles | undefined =
    web?.tls ??
    (config.TLS_CERT_FILE === ''
      ? undefined
      : {
          certFile: config.TLS_CERT_FILE,
          keyFile: config.TLS_KEY_FILE,
          clientCaFile: config.TLS_CLIENT_CA_FILE,
        })
  let tlsContents: Buffer[] = []
  let pendingTls: NodeJS.Timeout | undefined
  let https: HttpsOptions | undefined
  if (tlsFiles) {
    tlsContents = await readTlsFiles(tlsFiles)
    const material = parseTlsMaterial(tlsFiles, tlsContents)
    const mutual = tlsFiles.clientCaFile !== ''
    https = { ...material.context, requestCert: mutual, rejectUnauthorized: mutual }
    logCertificate(logger, material.summary, mutual, 'TLS certificate loaded')
  }
  const checker = web && web.users.size > 0 ? new BcryptChecker() : undefined
  const authenticator =
    checker && web ? new BasicAuthUsers(web.users, checker) : token && bearerAuthenticator(token)
  if (web) logWebConfig(logger, config.WEB_CONFIG_FILE, web)

  return {
    https,
    authenticator,
    headers: web?.headers ?? {},
    watch(server) {
      if (intervalMs === 0) return
      if (token && tokenFileContent) {
        const bearer = token
        pollers.push(
          new FilePoller({
            paths: [tokenFile],
            intervalMs,
            initial: [tokenFileContent],
            onProblem,
            onChange: ([content = Buffer.alloc(0)]) => {
              try {
                bearer.replace(tokenFromFile(tokenFile, content))
                logger.info({ file: tokenFile }, 'metrics token file changed; the new token is in use')
              } catch (error) {
                logger.warn(
                  { reason: (error as Error).message },
                  'metrics token file changed but cannot be used; the previous token stays in use',
                )
              }
            },
          }),
        )
      }
      if (tlsFiles && server) {
        const mutual = tlsFiles.clientCaFile !== ''
        const refused = (reason: string) =>
          logger.warn(
            { reason },
            'TLS files changed but cannot be used; the previous certificate stays in use',
          )
        const apply = (material: TlsMaterial) => {
          server.setSecureContext(material.context)
          logCertificate(logger, material.summary, mutual, 'TLS certificate reloaded')
        }
        /**
         * A certificate whose validity starts later (an issuer's clock ahead of ours) is applied
         * when it starts, unless the files change before: otherwise it would never be, since the
         * poller reports only changes.
         */
        const applyWhenValid = (material: TlsMaterial) => {
          const waitMs = Date.parse(material.summary.validFrom) - Date.now()
          if (waitMs > 0) {
            pendingTls = setTimeout(() => applyWhenValid(material), Math.min(waitMs, MAX_TIMER_MS))
            pendingTls.unref()
          } else if (validityProblem(material.summary, Date.now()) === undefined) apply(material)
        }
        pollers.push(
          new FilePoller({
            paths: tlsPaths(tlsFiles),
            intervalMs,
            initial: tlsContents,
            onProblem,
            onChange: (contents) => {
              clearTimeout(pendingTls)
              let material: TlsMaterial
              try {
                material = parseTlsMaterial(tlsFiles, contents)
              } catch (error) {
                refused((error as Error).message)
                return
              }
              // Checked on rotation only: at start there is nothing else to serve (logged there).
              const problem = validityProblem(material.summary, Date.now())
              if (problem === undefined) return apply(material)
              refused(tlsFileProblem(tlsFiles, 'cert', problem.reason).message)
              if (problem.kind === 'not yet valid') applyWhenValid(material)
            },
          }),
        )
      }
    },
    async close() {
      clearTimeout(pendingTls)
      await Promise.all([...pollers.map((poller) => poller.close()), checker?.close()])
    },
  }
}

function logCertificate(
  logger: Logger,
  summary: TlsMaterial['summary'],
  mutual: boolean,
  message: string,
): void {
  const problem = validityProblem(summary, Date.now())
  const fields = { ...summary, mutualTls: mutual }
  if (problem) logger.warn(fields, `${message}; ${problem.reason}: clients will refuse it`)
  else logger.info(fields, message)
}

/** What the file set, in names and counts: never a hash. */
function logWebConfig(logger: Logger, file: string, web: WebConfig): void {
  logger.info(
    { file, tls: web.tls !== undefined, basicAuthUsers: web.users.size, headers: Object.keys(web.headers) },
    'web configuration file loaded',
  )
}
