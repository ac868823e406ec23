import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { BearerToken, bearerCredentials, tokenFromFile } from '../../src/security/bearer-token.js'
import { FilePoller, readFailure } from '../../src/security/file-poller.js'
import { certificateBlocks, pemBlocks, privateKeyBlocks } from '../../src/security/pem.js'

test('PEM blocks: text around them dropped, CRLF and indentation normalised, order kept', () => {
  const text = [
    'Certificate:',
    '    Data: (what openssl x509 -text prints)',
    '-----BEGIN CERTIFICATE-----\r',
    '  QUJD\r',
    '  REVG\r',
    '-----END CERTIFICATE-----\r',
    'subject=CN = second',
    '-----BEGIN EC PARAMETERS-----',
    'BggqhkjOPQMBBw==',
    '-----END EC PARAMETERS-----',
    '-----BEGIN EC PRIVATE KEY-----',
    'S0VZ',
    '-----END EC PRIVATE KEY-----',
    '-----BEGIN CERTIFICATE-----',
    'R0hJ',
    '-----END CERTIFICATE-----',
    '-----BEGIN CERTIFICATE-----',
    'unterminated',
  ].join('\n')
  assert.deepEqual(
    pemBlocks(text).map((block) => block.label),
    ['CERTIFICATE', 'EC PARAMETERS', 'EC PRIVATE KEY', 'CERTIFICATE'],
  )
  assert.deepEqual(certificateBlocks(text), [
    '-----BEGIN CERTIFICATE-----\nQUJD\nREVG\n-----END CERTIFICATE-----\n',
    '-----BEGIN CERTIFICATE-----\nR0hJ\n-----END CERTIFICATE-----\n',
  ])
  assert.deepEqual(
    privateKeyBlocks(text).map((block) => block.pem),
    ['-----BEGIN EC PRIVATE KEY-----\nS0VZ\n-----END EC PRIVATE KEY-----\n'],
  )
  // A BEGIN without its own END is not a block, nor is a mislabelled END.
  assert.deepEqual(pemBlocks('-----BEGIN CERTIFICATE-----\nQUJD\n-----END PRIVATE KEY-----\n'), [])
})

test('bearer credentials: scheme case-insensitive, one token, nothing else', () => {
  assert.equal(bearerCredentials('Bearer abc'), 'abc')
  assert.equal(bearerCredentials('bEaReR \t abc  '), 'abc')
  for (const header of [
    undefined,
    '',
    'Bearer',
    'Bearer ',
    'Basic abc',
    'Bearer a b',
    'Bearerabc',
    ' Bearer abc',
  ])
    assert.equal(bearerCredentials(header), undefined, JSON.stringify(header))
})

test('token comparison: equal only for the same token, whatever the lengths', () => {
  const token = new BearerToken('s3cr3t-token')
  assert.equal(token.matches('s3cr3t-token'), true)
  for (const presented of [
    undefined,
    '',
    's3cr3t-toke',
    's3cr3t-token ',
    'S3CR3T-TOKEN',
    'x'.repeat(100_000),
  ])
    assert.equal(token.matches(presented), false, JSON.stringify(presented?.slice(0, 20)))
  token.replace('next')
  assert.equal(token.matches('s3cr3t-token'), false)
  assert.equal(token.matches('next'), true)
  // An empty token can never be configured (empty means unset), but must not match nothing.
  assert.equal(new BearerToken('').matches(undefined), false)
})

test('token files: trimmed, and refused without quoting their content', () => {
  assert.equal(tokenFromFile('/t', Buffer.from('\n  abc-123\r\n')), 'abc-123')
  assert.throws(
    () => tokenFromFile('/t', Buffer.from(' \n')),
    /^ConfigError: METRICS_AUTH_TOKEN_FILE="\/t": the file is empty$/,
  )
  assert.throws(
    () => tokenFromFile('/t', Buffer.from('hidden words')),
    (error: Error) => !error.message.includes('hidden') && /printable ASCII/.test(error.message),
  )
  assert.equal(
    readFailure(new Error("ENOENT: no such file or directory, open '/x'")),
    'cannot read (ENOENT: no such file or directory)',
  )
})

test('file poller: reports a change once, a read failure once, and nothing after close', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'objstore-poller-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const path = join(dir, 'watched')
  await writeFile(path, 'one')
  const changes: string[] = []
  const problems: string[] = []
  // Polls run only when the test says, each awaited: no read ever meets a half-written file
  // (writeFile truncates first), and "no further report" is checked after real polls, not a sleep.
  let due: (() => Promise<void>) | undefined
  const poller = new FilePoller({
    paths: [path],
    intervalMs: 10,
    initial: [Buffer.from('one')],
    onChange: ([content]) => changes.push(String(content)),
    onProblem: (message) => problems.push(message),
    schedule: (poll, ms) => {
      assert.equal(ms, 10)
      due = poll
      return () => {
        due = undefined
      }
    },
  })
  const polls = async (count: number) => {
    for (let index = 0; index < count; index++) {
      const poll = due
      assert.ok(poll, 'a poll is scheduled')
      due = undefined
      await poll()
    }
  }
  await polls(1)
  assert.deepEqual(changes, [], 'the initial bytes are no change')
  await writeFile(path, 'two')
  await polls(1)
  assert.deepEqual(changes, ['two'])
  await rm(path)
  await polls(5)
  assert.equal(problems.length, 1, 'the same failure is reported once')
  assert.match(problems[0] ?? '', /watched: cannot read \(ENOENT/)
  await writeFile(path, 'two')
  await polls(2)
  assert.deepEqual(changes, ['two'], 'back to the same bytes is no change')
  await writeFile(path, 'three')
  await polls(1)
  assert.deepEqual(changes, ['two', 'three'])
  await poller.close()
  assert.equal(due, undefined, 'close cancels the next poll')
  assert.equal(problems.length, 1)
})
