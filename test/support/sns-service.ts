import { execFile } from 'node:child_process'
import { sign } from 'node:crypto'
import { once } from 'node:events'
import { readFile, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Agent, buildConnector, type Dispatcher, getGlobalDispatcher, setGlobalDispatcher } from 'undici'
import { type SnsMessage, stringToSign } from '../../src/events/sns-message.js'
import { TestPki } from './certificates.js'

const run = promisify(execFile)

/** The host SNS messages name; served by this process on loopback. */
export const SNS_HOST = 'sns.us-east-1.amazonaws.com'
export const CERT_PATH = '/SimpleNotificationService-test.pem'
export const TOPIC_ARN = 'arn:aws:sns:us-east-1:123456789012:bucket-events'

/**
 * A stand-in for AWS SNS's HTTPS host, made for the test with the openssl command line: a CA of
 * its own, a TLS certificate for `sns.us-east-1.amazonaws.com` it signed, and an RSA key and
 * certificate to sign SNS messages with (served at CERT_PATH, as SNS serves its signing
 * certificate). The test process's undici global dispatcher is pointed at it: connections to that
 * host go to the loopback server, trusting only the test's CA. The exporter's code is unchanged: it
 * fetches `https://sns.us-east-1.amazonaws.com/...` as it would in production.
 */
export class SnsService {
  /** Requests the server received: path and query. */
  readonly requests: string[] = []
  /** What the server answers a confirmation (200 by default). */
  confirmationStatus = 200
  readonly #server: Server
  readonly #signingKey: string
  readonly #previous: Dispatcher
  readonly #agent: Agent

  private constructor(server: Server, signingKey: string, agent: Agent) {
    this.#server = server
    this.#signingKey = signingKey
    this.#previous = getGlobalDispatcher()
    this.#agent = agent
    setGlobalDispatcher(agent)
  }

  static async start(dir: string): Promise<SnsService> {
    const file = (name: string) => join(dir, name)
    const authority = await new TestPki(dir).authority('test-sns-ca')
    await run('openssl', [
      ...['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-keyout', file('tls.key'), '-out', file('tls.csr'), '-subj', `/CN=${SNS_HOST}`],
    ])
    await writeFile(file('tls.ext'), `subjectAltName=DNS:${SNS_HOST}\nextendedKeyUsage=serverAuth\n`)
    await run('openssl', [
      ...['x509', '-req', '-in', file('tls.csr'), '-CA', authority.certFile, '-CAkey', authority.keyFile],
      ...['-set_serial', '0x1001', '-out', file('tls.crt'), '-days', '2', '-extfile', file('tls.ext')],
    ])
    // SNS signs with RSA keys.
    await run('openssl', [
      ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', file('signing.key')],
      ...['-out', file('signing.crt'), '-days', '2', '-subj', '/CN=sns.amazonaws.com'],
    ])
    const ca = authority.certPem
    const [tlsKey, tlsCert, signingKey, signingCert] = (await Promise.all(
      ['tls.key', 'tls.crt', 'signing.key', 'signing.crt'].map((name) => readFile(file(name), 'utf8')),
    )) as [string, string, string, string]
    let service: SnsService | undefined
    const server = createServer({ key: tlsKey, cert: tlsCert }, (request, response) => {
      const url = request.url ?? ''
      service?.requests.push(url)
      if (url === CERT_PATH) return response.writeHead(200, { 'content-type': 'text/plain' }).end(signingCert)
      if (url.startsWith('/?Action=ConfirmSubscription'))
        return response
          .writeHead(service?.confirmationStatus ?? 200, { 'content-type': 'text/xml' })
          .end('<ConfirmSubscriptionResponse/>')
      response.writeHead(404).end()
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    const port = (server.address() as AddressInfo).port
    const toSns = buildConnector({ ca, timeout: 5000 })
    // The test's own requests (to the exporter, on loopback) connect as usual: the global
    // dispatcher is Node's fetch's too.
    const direct = buildConnector({ timeout: 5000 })
    const agent = new Agent({
      connect: (options, callback) =>
        options.hostname === SNS_HOST
          ? toSns({ ...options, hostname: '127.0.0.1', port: String(port), servername: SNS_HOST }, callback)
          : direct(options, callback),
    })
    service = new SnsService(server, signingKey, agent)
    return service
  }

  /** An SNS message of `type` with `message` as its Message, signed with the test's key. */
  message(
    type: SnsMessage['Type'],
    message: string,
    options: { version?: '1' | '2'; topicArn?: string; certUrl?: string; subject?: string } = {},
  ): SnsMessage & Record<string, string> {
    const unsigned = {
      Type: type,
      MessageId: `m-${Math.random().toString(16).slice(2)}`,
      TopicArn: options.topicArn ?? TOPIC_ARN,
      Message: message,
      Timestamp: new Date().toISOString(),
      SignatureVersion: options.version ?? '2',
      Signature: '',
      SigningCertURL: options.certUrl ?? `https://${SNS_HOST}${CERT_PATH}`,
      ...(options.subject === undefined ? {} : { Subject: options.subject }),
      ...(type === 'Notification'
        ? { UnsubscribeURL: `https://${SNS_HOST}/?Action=Unsubscribe` }
        : {
            Token: 'confirmation-token',
            SubscribeURL: `https://${SNS_HOST}/?Action=ConfirmSubscription&TopicArn=${encodeURIComponent(
              options.topicArn ?? TOPIC_ARN,
            )}&Token=confirmation-token`,
          }),
    } as SnsMessage & Record<string, string>
    const algorithm = unsigned.SignatureVersion === '1' ? 'sha1' : 'sha256'
    const signature = sign(algorithm, Buffer.from(stringToSign(unsigned)), this.#signingKey).toString(
      'base64',
    )
    return { ...unsigned, Signature: signature }
  }

  async close(): Promise<void> {
    setGlobalDispatcher(this.#previous)
    await this.#agent.close()
    this.#server.closeAllConnections()
    this.#server.close()
    await once(this.#server, 'close')
  }
}
