import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { describe, it } from 'node:test'
import { MAX_SCRUBBED_LENGTH } from '../../src/logging/secret-forms.js'
import { createSecretRedactor } from '../../src/logging/secret-redactor.js'
import { encodedForms, findLeaks } from '../support/secret-encodings.js'

/** Secrets with something for every encoding to change: URL and JSON specials, a space, non-ASCII. */
const SECRETS = {
  sessionToken: 'FwoGZXIvYXdzEJr//////////wEaDH+7b/q0 "quoted" \\back==',
  accessKey: 'AKIAIOSFODNN7EXAMPLE',
  unicode: 'pässwörd-€-𝄞-clé/7',
  slashes: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
}

describe('the secret redactor', () => {
  const redactor = createSecretRedactor(Object.values(SECRETS))

  for (const [name, secret] of Object.entries(SECRETS))
    it(`blanks every encoding of the ${name}, alone, in a sentence and in a JSON log line`, () => {
      for (const [form, written] of Object.entries(encodedForms(secret))) {
        const sentence = `the store said: ${written}; retrying`
        const inJson = JSON.stringify({ msg: 'listing failed', error: sentence })
        for (const text of [written, sentence, inJson]) {
          const redacted = redactor.redact(text)
          assert.deepEqual(findLeaks(redacted, { [name]: secret }), [], `${form} in ${text}: ${redacted}`)
          assert.ok(redacted.includes('[redacted]'), `${form} in ${text}`)
        }
        assert.ok(redactor.redact(sentence).startsWith('the store said: '), 'the words around are kept')
      }
    })

  it('blanks exactly the base64 characters that carry a bit of the secret, at every alignment', () => {
    const secret = Buffer.from(SECRETS.accessKey)
    for (let before = 0; before < 6; before++)
      for (let after = 0; after < 4; after++)
        for (const alphabet of ['base64', 'base64url'] as const) {
          const blob = Buffer.concat([randomBytes(before), secret, randomBytes(after)]).toString(alphabet)
          // Characters [6j, 6j+6) bits: the first touching the secret, and the first past it.
          const first = Math.floor((8 * before) / 6)
          const past = Math.ceil((8 * (before + secret.length)) / 6)
          assert.equal(
            redactor.redact(blob),
            `${blob.slice(0, first)}[redacted]${blob.slice(past)}`,
            `${alphabet}, ${before} bytes before, ${after} after`,
          )
        }
  })

  it('blanks base64 written into a URL or a JSON text (`%2B`, `%2f`, `\\/`)', () => {
    // `~~~>>>???` encodes to `+/` characters at every alignment.
    const secret = Buffer.from('~~~>>>???-url-token')
    const redactor = createSecretRedactor([secret.toString()])
    const blob = Buffer.concat([Buffer.from('x'), secret]).toString('base64')
    // The characters fixed by the secret alone (it starts one byte in): bits 8 to 8 (1 + length).
    const core = blob.slice(2, Math.floor((8 * (1 + secret.length)) / 6))
    assert.match(core, /\+/)
    assert.match(core, /\//)
    const lowerEscapes = (text: string) => text.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase())
    for (const write of [
      encodeURIComponent,
      (text: string) => lowerEscapes(encodeURIComponent(text)),
      (text: string) => JSON.stringify(text).replaceAll('/', '\\/'),
      (text: string) => JSON.stringify(JSON.stringify(text).replaceAll('/', '\\/')),
    ]) {
      const redacted = redactor.redact(`token=${write(blob)}&next=1`)
      assert.ok(!redacted.includes(write(core).replaceAll('"', '')), redacted)
      assert.match(redacted, /\[redacted\]/)
    }
  })

  it('replaces a secret that contains another whole', () => {
    const both = createSecretRedactor(['inner-secret', 'outer-inner-secret-tail'])
    assert.equal(both.redact('a outer-inner-secret-tail b inner-secret c'), 'a [redacted] b [redacted] c')
  })

  it('leaves short secrets and ordinary words alone (the documented rule)', () => {
    const short = createSecretRedactor(['abc', 'pass', 'admin123'])
    assert.equal(short.active, true)
    // Under 4 characters: not scrubbed from text at all.
    assert.equal(short.redact('abc abcdef'), 'abc abcdef')
    // 4 to 7 bytes: as written, URL-encoded and JSON-escaped only; its hex and base64 stay.
    const pass = Buffer.from('pass')
    assert.equal(
      short.redact(`pass ${pass.toString('hex')} ${pass.toString('base64')} passage`),
      `[redacted] ${pass.toString('hex')} ${pass.toString('base64')} [redacted]age`,
    )
    // 8 bytes and more: every form, yet the words it is made of are kept.
    const admin = Buffer.from('admin123')
    assert.equal(
      short.redact(`admin 123 ${admin.toString('hex')} ${admin.toString('base64')} 61646d696e`),
      'admin 123 [redacted] [redacted]= 61646d696e',
    )
    assert.equal(createSecretRedactor(['ab', '']).active, false)
  })

  it(`matches a secret's first ${MAX_SCRUBBED_LENGTH} characters`, () => {
    const long = `${'k'.repeat(MAX_SCRUBBED_LENGTH)}TAIL`
    assert.equal(createSecretRedactor([long]).redact(`<${long}>`), '<[redacted]TAIL>')
  })

  it('scans a long run of backslashes or escapes in one pass (no exponential backtracking)', () => {
    // With one position per backslash, each escaped once or twice, this would not end.
    const slashes = createSecretRedactor(['\\\\\\\\\\\\\\\\\\\\\\\\x', 'a/b/c/d/e/f/g/h/i/j'])
    const text = `${'\\'.repeat(200_000)}${'\\/a'.repeat(50_000)}`
    assert.equal(slashes.redact(text), text)
    assert.equal(slashes.redact(`${'\\'.repeat(24)}x`), '[redacted]')
  })
})
