import assert from 'node:assert/strict'
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { ConfigError, loadConfig } from '../../src/config/load.js'
import { AUTH_CHALLENGE } from '../../src/security/bearer-token.js'
import { type RunningExporter, startExporter } from '../support/exporter.js'
import { parseExposition } from '../support/exposition.js'

const TOKEN = 'tok-7f3c9a1e-auth-marker'

let dir: string
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'objstore-auth-'))
})
after(() => rm(dir, { recursive: true, force: true }))

interface Answer {
  readonly status: number
  readonly challenge: string | undefined
  readonly body: string
}

/** A request with any method and raw header value (fetch would refuse some of these). */
function send(
  running: RunningExporter,
  method: string,
  path: string,
  authorization?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      `${running.baseUrl}${path}`,
      { method, headers: authorization === undefined ? {} : { authorization }, timeout: 20_000 },
      (response) => {
        let body = ''
        response.on('data', (chunk: Buffer) => {
          body += chunk.toString('utf8')
        })
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            challenge: response.headers['www-authenticate'],
            body,
          }),
        )
        response.on('error', reject)
      },
    )
    outgoing.on('timeout', () => outgoing.destroy(new Error('timed out')))
    outgoing.on('error', reject)
    outgoing.end()
  })
}

test('without a token configured every endpoint is open', async (t) => {
  const running = await startExporter()
  t.after(() => running.close())
  assert.equal((await send(running, 'GET', '/metrics')).status, 200)
  assert.equal((await send(running, 'GET', '/')).status, 200)
})

test('METRICS_AUTH_TOKEN: every request but the probes needs the bearer token', async (t) => {
  const running = await startExporter({ METRICS_AUTH_TOKEN: TOKEN, LOG_LEVEL: 'trace' })
  t.after(() => running.close())
  const cases: Array<[string, string, string | undefined, number]> = [
    ['GET', '/metrics', undefined, 401],
    ['GET', '/metrics', `Bearer ${TOKEN}`, 200],
    ['GET', '/metrics', `bearer ${TOKEN}`, 200],
    ['GET', '/metrics', `BEARER   ${TOKEN}  `, 200],
    ['HEAD', '/metrics', undefined, 401],
    ['HEAD', '/metrics', `Bearer ${TOKEN}`, 200],
    ['GET', '/metrics', 'Bearer wrong', 401],
    ['GET', '/metrics', `Bearer ${TOKEN}x`, 401],
    ['GET', '/metrics', `Bearer ${TOKEN.slice(0, -1)}`, 401],
    ['GET', '/metrics', `Bearer ${TOKEN.toUpperCase()}`, 401],
    ['GET', '/metrics', `Bearer ${'x'.repeat(4000)}`, 401],
    ['GET', '/metrics', `Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}`, 401],
    ['GET', '/metrics', TOKEN, 401],
    ['GET', '/metrics', 'Bearer', 401],
    ['GET', '/metrics', `Bearer ${TOKEN} extra`, 401],
    ['GET', '/metrics', '', 401],
    ['GET', '/', undefined, 401],
    ['GET', '/', `Bearer ${TOKEN}`, 200],
    ['GET', '/no-such-page', undefined, 401],
    ['GET', '/no-such-page', `Bearer ${TOKEN}`, 404],
    ['GET', '/../../etc/passwd', undefined, 401],
    ['POST', '/metrics', undefined, 401],
    ['POST', '/metrics', `Bearer ${TOKEN}`, 405],
    ['GET', '/healthz', undefined, 200],
    ['GET', '/readyz', undefined, 200],
    ['GET', '/healthz', 'Bearer wrong', 200],
    ['GET', '/metrics?x=/healthz', undefined, 401],
    ['GET', '/healthz/../metrics', undefined, 401],
  ]
  for (const [method, path, authorization, status] of cases) {
    const answer = await send(running, method, path, authorization)
    const label = `${method} ${path} with ${JSON.stringify(authorization)}`
    assert.equal(answer.status, status, label)
    if (status === 401) {
      assert.equal(answer.challenge, AUTH_CHALLENGE, label)
      assert.ok(!answer.body.includes(TOKEN), `the 401 does not echo the token: ${label}`)
    } else assert.equal(answer.challenge, undefined, label)
  }
  assert.equal(AUTH_CHALLENGE, 'Bearer realm="objstore-exporter"')
  assert.ok(
    parseExposition((await send(running, 'GET', '/metrics', `Bearer ${TOKEN}`)).body).samples.length > 10,
  )
  // Even at trace level, nothing logged carries the token.
  assert.ok(!JSON.stringify(running.logs.lines).includes(TOKEN), 'the token never reaches a log line')
})

test('METRICS_AUTH_TOKEN_FILE: read at start, rotated on disk, a bad new file keeps the old token', async (t) => {
  const tokenFile = join(dir, 'token')
  await writeFile(tokenFile, 'first-token-from-a-file\n')
  const running = await startExporter({
    METRICS_AUTH_TOKEN_FILE: tokenFile,
    SECURITY_FILES_RELOAD_SECONDS: '1',
    LOG_LEVEL: 'trace',
  })
  t.after(() => running.close())
  const status = async (token: string) => (await send(running, 'GET', '/metrics', `Bearer ${token}`)).status
  assert.equal(await status('first-token-from-a-file'), 200, 'the trailing newline is not part of the token')
  assert.equal(await status('second-token'), 401)

  const replace = async (content: string) => {
    await writeFile(`${tokenFile}.new`, content)
    await rename(`${tokenFile}.new`, tokenFile)
  }
  const waitFor = async (message: string, count: number) => {
    const deadline = Date.now() + 20_000
    while (running.logs.messages().filter((line) => line.startsWith(message)).length < count) {
      if (Date.now() > deadline) throw new Error(`no "${message}": ${JSON.stringify(running.logs.lines)}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  await replace('  second-token  \n')
  await waitFor('metrics token file changed; the new token is in use', 1)
  assert.equal(await status('second-token'), 200)
  assert.equal(await status('first-token-from-a-file'), 401, 'the old token stops working')

  await replace('\n')
  await waitFor('metrics token file changed but cannot be used', 1)
  assert.equal(await status('second-token'), 200, 'an emptied file keeps the token in use')

  await replace('two words\n')
  await waitFor('metrics token file changed but cannot be used', 2)
  assert.equal(await status('second-token'), 200)

  await rm(tokenFile)
  await waitFor('cannot read a security file again', 1)
  assert.equal(await status('second-token'), 200, 'a vanished file keeps the token in use')

  await replace('third-token')
  await waitFor('metrics token file changed; the new token is in use', 2)
  assert.equal(await status('third-token'), 200)
  assert.equal(await status('second-token'), 401)

  const logged = JSON.stringify(running.logs.lines)
  for (const token of ['first-token-from-a-file', 'second-token', 'third-token', 'two words'])
    assert.ok(!logged.includes(token), `${token} never reaches a log line`)
})

test('a token file that is missing, empty or not one word refuses start-up with one line', async () => {
  const empty = join(dir, 'empty-token')
  await writeFile(empty, ' \n')
  const spaced = join(dir, 'spaced-token')
  await writeFile(spaced, 'secret words in a file\n')
  const cases: Array<[string, RegExp]> = [
    [
      join(dir, 'absent'),
      /^METRICS_AUTH_TOKEN_FILE=".*absent": cannot read \(ENOENT: no such file or directory\)$/,
    ],
    [dir, /^METRICS_AUTH_TOKEN_FILE=".*": cannot read \(EISDIR: illegal operation on a directory\)$/],
    [empty, /^METRICS_AUTH_TOKEN_FILE=".*empty-token": the file is empty$/],
    [
      spaced,
      /^METRICS_AUTH_TOKEN_FILE=".*spaced-token": the token must be printable ASCII characters without spaces$/,
    ],
  ]
  for (const [path, expected] of cases) {
    await assert.rejects(startExporter({ METRICS_AUTH_TOKEN_FILE: path }), (error: unknown) => {
      assert.ok(error instanceof ConfigError)
      assert.equal(error.lines.length, 1)
      assert.match(error.lines[0] ?? '', expected)
      assert.ok(!error.message.includes('secret words'), 'the file content is never quoted')
      return true
    })
  }
  assert.throws(
    () => loadConfig({ METRICS_AUTH_TOKEN: TOKEN, METRICS_AUTH_TOKEN_FILE: empty }, { dotenvPath: false }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError)
      assert.deepEqual(error.lines, [
        'METRICS_AUTH_TOKEN_FILE: set either METRICS_AUTH_TOKEN or METRICS_AUTH_TOKEN_FILE, not both',
      ])
      assert.ok(!error.message.includes(TOKEN))
      return true
    },
  )
})
