import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ConfigError, loadConfiguration } from '../../src/config/load.js'
import { envSchema } from '../../src/config/schema.js'
import { tokenFromFile } from '../../src/security/bearer-token.js'
import { readTlsFiles } from '../../src/security/tls-material.js'

/**
 * A configuration error names the variable and quotes its value; a value of 100 kB (a file's
 * content pasted into a variable, a runaway script) was echoed whole, one 100 kB line per
 * variable. Every variable, given values made to fail each kind of check, must be refused in
 * lines of readable length.
 */

const LONG = 100_000
const VALUES = [
  'x'.repeat(LONG),
  `${'9'.repeat(LONG)}`,
  `a,${'x'.repeat(LONG)}`,
  `/data{1...2}${'x'.repeat(LONG)}{`,
  `[${'x'.repeat(LONG)}`,
  `ftp://user:pass@${'x'.repeat(LONG)}`,
  `http://${'x'.repeat(LONG)}`,
  `${'x'.repeat(LONG)}=label`,
]
const MOST = 400

test('a 100 kB value of any variable is refused in lines of at most 400 characters', () => {
  const names = Object.keys(envSchema.properties)
  assert.ok(names.length > 50, `the sweep covers every variable (${names.length})`)
  const refused = new Set<string>()
  const long: string[] = []
  for (const name of names)
    for (const value of VALUES) {
      try {
        loadConfiguration({ [name]: value }, { dotenvPath: false })
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error
        refused.add(name)
        for (const line of error.lines)
          if (line.length > MOST) long.push(`${name}: ${line.slice(0, 120)}... (${line.length})`)
      }
    }
  assert.deepEqual(long, [], 'lines over the bound')
  assert.ok(refused.size > 40, `most variables refuse one of the values (${refused.size})`)
})

test('a long value is quoted by its start, with an ellipsis and its length', () => {
  try {
    loadConfiguration({ PORT: '9'.repeat(LONG) }, { dotenvPath: false })
    assert.fail('refused')
  } catch (error) {
    assert.ok(error instanceof ConfigError)
    assert.deepEqual(error.lines, [
      `PORT="${'9'.repeat(100)}"... (100000 characters): expected an integer >= 1 and <= 65535`,
    ])
  }
})

test('the token and TLS file errors quote a long path cut too', async () => {
  const path = `/tmp/${'x'.repeat(LONG)}`
  const lines: string[] = []
  try {
    tokenFromFile(path, Buffer.from(''))
  } catch (error) {
    if (error instanceof ConfigError) lines.push(...error.lines)
  }
  await readTlsFiles({ certFile: path, keyFile: path, clientCaFile: '' }).catch((error: unknown) => {
    if (error instanceof ConfigError) lines.push(...error.lines)
  })
  assert.equal(lines.length, 2)
  for (const line of lines) {
    assert.ok(line.length <= MOST, line.slice(0, 200))
    assert.match(line, /^(METRICS_AUTH_TOKEN_FILE|TLS_CERT_FILE)="\/tmp\/x+"\.\.\. \(100005 characters\): /)
  }
})

test('when every TLS file fails, the line names the first of them each time', async () => {
  // Two unreadable files fail at about the same moment; the line must not depend on which
  // read the kernel answered first (it did, and the suite failed once in CI on Node 22).
  const missing = '/nonexistent-objstore-exporter/cert.pem'
  const named = new Set<string>()
  for (let attempt = 0; attempt < 40; attempt += 1) {
    await readTlsFiles({ certFile: missing, keyFile: '/tmp/', clientCaFile: '' }).catch((error: unknown) => {
      if (error instanceof ConfigError) named.add(error.lines[0]?.split('=')[0] ?? '')
    })
  }
  assert.deepEqual([...named], ['TLS_CERT_FILE'])
})
