import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { connect } from 'node:net'
import { after, before, test } from 'node:test'
import { SECURITY_HEADERS } from '../../src/server/plugins/security-headers.js'
import { type RunningExporter, startExporter } from '../support/exporter.js'

let running: RunningExporter
before(async () => {
  running = await startExporter()
})
after(() => running.close())

interface RawAnswer {
  readonly status: number
  readonly head: string
  readonly body: string
}

/**
 * Sends `text` as is on a fresh TCP connection and reads what comes back until the server closes
 * or a full response has arrived (bounded): fetch cannot send most of these requests.
 */
function rawRequest(text: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(running.port, '127.0.0.1')
    let received = ''
    const finish = () => {
      clearTimeout(timer)
      socket.destroy()
      const [head = '', body = ''] = received.split('\r\n\r\n', 2)
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0)
      resolve({ status, head, body })
    }
    const timer = setTimeout(() => {
      socket.destroy()
      reject(
        new Error(`no complete answer to ${JSON.stringify(text.slice(0, 80))}: ${JSON.stringify(received)}`),
      )
    }, 20_000)
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1')
      const length = /\r\ncontent-length: (\d+)\r\n/i.exec(received)
      const headEnd = received.indexOf('\r\n\r\n')
      if (length && headEnd >= 0 && received.length - headEnd - 4 >= Number(length[1])) finish()
    })
    socket.on('close', finish)
    socket.on('error', () => finish())
    socket.write(text)
  })
}

const get = (target: string, extra = '') => `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}\r\n`

const cases: Array<[string, string, number]> = [
  ['a 20 KiB header (Node maxHeaderSize 16 KiB)', get('/metrics', `X-Big: ${'a'.repeat(20_000)}\r\n`), 431],
  ['a 20 KiB URL', get(`/${'a'.repeat(20_000)}`), 431],
  // Node counts header bytes loosely (2,000 headers of 11 bytes pass), but a flood is cut off.
  ['100,000 small headers (1 MiB)', get('/metrics', 'X-Many: 1\r\n'.repeat(100_000)), 431],
  ['TRACE on a page', 'TRACE / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 405],
  ['TRACE elsewhere', 'TRACE /nothing HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 404],
  ['PROPFIND on /', 'PROPFIND / HTTP/1.1\r\nHost: 127.0.0.1\r\nDepth: 1\r\n\r\n', 405],
  ['PROPFIND on /metrics', 'PROPFIND /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 405],
  ['OPTIONS *', 'OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 404],
  ['DELETE /metrics', 'DELETE /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 405],
  ['PUT /', 'PUT / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\nhi', 405],
  ['CONNECT to a port on this host', 'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n', 405],
  ['an unknown method', 'BREW /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 400],
  ['a request line of garbage', '\x00\x01\x02 nonsense\r\n\r\n', 400],
  [
    'Content-Length with Transfer-Encoding (smuggling)',
    'POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    400,
  ],
  [
    'a 2 KiB body to a page that takes none (never read)',
    `POST /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2048\r\n\r\n${'x'.repeat(2048)}`,
    405,
  ],
  ['/../../etc/passwd', get('/../../etc/passwd'), 404],
  ['/%2e%2e/%2e%2e/etc/passwd', get('/%2e%2e/%2e%2e/etc/passwd'), 404],
  ['/..%2f..%2fetc%2fpasswd', get('/..%2f..%2fetc%2fpasswd'), 404],
  ['/%252e%252e/etc/passwd (double encoded)', get('/%252e%252e/etc/passwd'), 404],
  ['/..%c0%af..%c0%afetc/passwd (overlong UTF-8)', get('/..%c0%af..%c0%afetc/passwd'), 400],
  ['/\\..\\..\\etc\\passwd (backslashes)', get('/\\..\\..\\etc\\passwd'), 404],
  ['//etc/passwd', get('//etc/passwd'), 404],
  ['/metrics/../../etc/passwd', get('/metrics/../../etc/passwd'), 404],
  ['/metrics/%2e%2e/%2e%2e/etc/passwd', get('/metrics/%2e%2e/%2e%2e/etc/passwd'), 404],
  ['/etc/passwd', get('/etc/passwd'), 404],
  ['/%00 (NUL)', get('/%00'), 404],
  ['/% (malformed escape)', get('/%'), 400],
  ['/%zz (malformed escape)', get('/%zz'), 400],
  ['absolute form to another host with traversal', get('http://evil.example/../../etc/passwd'), 404],
  ['a directory-looking path', get('/src/'), 404],
  ['/node_modules/.package-lock.json', get('/node_modules/.package-lock.json'), 404],
  ['/.env', get('/.env'), 404],
]

for (const [name, request, status] of cases) {
  test(`hostile request: ${name} -> ${status}`, async () => {
    const answer = await rawRequest(request)
    assert.equal(answer.status, status, `${name}: ${answer.head}`)
    assert.doesNotMatch(
      answer.body,
      /root:|objstore_|"name":/,
      'no file content and no metrics in the answer',
    )
    if (status === 405) assert.match(answer.head, /\r\nAllow: GET, HEAD/i)
    // Node's own answers (400, 431; CONNECT's 405) included.
    assertSecurityHeaders(answer.head, name)
  })
}

/** Every header of SECURITY_HEADERS, with its value, in a raw response head. */
function assertSecurityHeaders(head: string, what: string): void {
  const lines = head.toLowerCase().split('\r\n')
  for (const [name, value] of Object.entries(SECURITY_HEADERS))
    assert.ok(lines.includes(`${name}: ${value}`.toLowerCase()), `${name} on ${what}: ${head}`)
}

test('an absolute-form request is answered for its path, whatever host it names (no proxying)', async () => {
  // RFC 9112 3.2.2: a server must accept the absolute form; the host in it fetches nothing.
  const scrape = await rawRequest(get('http://evil.example/metrics'))
  assert.equal(scrape.status, 200, scrape.head)
  assert.match(scrape.body, /^objstore_exporter_build_info/m)
  assertSecurityHeaders(scrape.head, 'an absolute-form scrape')
  const page = await rawRequest(get('http://evil.example:9786/nothing/../../etc/passwd'))
  assert.equal(page.status, 404, page.head)
})

test('no answer may be cached: Cache-Control no-store on the scrape, the page and the probes', async () => {
  for (const path of ['/metrics', '/', '/healthz', '/readyz', '/missing']) {
    const response = await fetch(`${running.baseUrl}${path}`)
    assert.equal(response.headers.get('cache-control'), 'no-store', path)
    await response.arrayBuffer()
  }
})

test('after all that the exporter still serves, and logged no request details', async () => {
  const response = await fetch(`${running.baseUrl}/metrics`)
  assert.equal(response.status, 200)
  assert.match(await response.text(), /^objstore_exporter_build_info/m)
  assert.doesNotMatch(JSON.stringify(running.logs.lines), /etc\/passwd|a{1000}/)
})

test('a 404 does not echo the path it was asked for', async () => {
  const response = await fetch(`${running.baseUrl}/%3Cscript%3Ealert(1)%3C/script%3E`)
  assert.equal(response.status, 404)
  const body = await response.text()
  assert.doesNotMatch(body, /script|alert/)
  assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8')
})

test('security headers on the landing page, the scrape, JSON answers and errors', async () => {
  for (const [path, status] of [
    ['/', 200],
    ['/metrics', 200],
    ['/healthz', 200],
    ['/readyz', 200],
    ['/missing', 404],
  ] as const) {
    const response = await fetch(`${running.baseUrl}${path}`)
    assert.equal(response.status, status, path)
    for (const [name, value] of Object.entries(SECURITY_HEADERS))
      assert.equal(response.headers.get(name), value, `${name} on ${path}`)
    await response.arrayBuffer()
  }
  assert.match(SECURITY_HEADERS['content-security-policy'] ?? '', /^default-src 'none'/)
  // The landing page needs nothing the policy forbids: no script, image or frame, only inline
  // styles whose hash the policy names, and forms that send a GET to this origin's page only.
  const page = await (await fetch(`${running.baseUrl}/`)).text()
  assert.doesNotMatch(page, /<script|style=|<img|<iframe|<link/i)
  assert.match(SECURITY_HEADERS['content-security-policy'] ?? '', /; form-action 'self';/)
  for (const [form] of page.matchAll(/<form[^>]*>/gi))
    assert.match(form, /^<form method="get" action="\/"[ >]/)
  const styles = [...page.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => match[1] ?? '')
  for (const style of styles) {
    const hash = createHash('sha256').update(style).digest('base64')
    assert.ok(
      SECURITY_HEADERS['content-security-policy']?.includes(`style-src 'sha256-${hash}'`),
      'style not allowed',
    )
  }
})
