/**
 * The image's HEALTHCHECK (`node dist/healthcheck.js`): GET /healthz on the container's own port,
 * over HTTPS when TLS_CERT_FILE is set or WEB_CONFIG_FILE's `tls_server_config` turns TLS on;
 * exit 0 on a 200, 1 otherwise. It reads only HOST, PORT, TLS_CERT_FILE and WEB_CONFIG_FILE (the
 * variable: a `--web.config.file` flag is not visible to it), so it works whatever else the
 * configuration says. The certificate is not
 * verified: this asks the process on this host whether it is alive, not who it is. With mutual
 * TLS (TLS_CLIENT_CA_FILE) the handshake needs a client certificate this check does not have;
 * rely on the orchestrator's probes there.
 */
import { readFile } from 'node:fs/promises'
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { DEFAULT_PORT } from './config/default-port.js'
import { setsTls } from './security/web-config-tls.js'

const TIMEOUT_MS = 4000
const { HOST = '', PORT = '', TLS_CERT_FILE = '', WEB_CONFIG_FILE = '' } = process.env
// A wildcard listen address answers on loopback; a specific one only on itself.
const host = ['', '0.0.0.0', '::'].includes(HOST) ? '127.0.0.1' : HOST
const port = Number(PORT || DEFAULT_PORT)
const request = TLS_CERT_FILE || (await webConfigSetsTls()) ? httpsRequest : httpRequest

/** YAML is loaded only when there is a file to read: the check runs every 30 s. */
async function webConfigSetsTls(): Promise<boolean> {
  if (WEB_CONFIG_FILE === '') return false
  try {
    const { parse } = await import('yaml')
    const content: unknown = parse(await readFile(WEB_CONFIG_FILE, 'utf8'))
    return (
      typeof content === 'object' && content !== null && setsTls(Reflect.get(content, 'tls_server_config'))
    )
  } catch (error) {
    process.stderr.write(`healthcheck: WEB_CONFIG_FILE: ${(error as Error).message}\n`)
    process.exit(1)
  }
}

const probe = request(
  { host, port, path: '/healthz', method: 'GET', timeout: TIMEOUT_MS, rejectUnauthorized: false },
  (response) => {
    response.resume()
    process.exit(response.statusCode === 200 ? 0 : 1)
  },
)
probe.on('timeout', () => probe.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)))
probe.on('error', (error) => {
  process.stderr.write(`healthcheck: ${error.message}\n`)
  process.exit(1)
})
probe.end()
