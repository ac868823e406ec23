import assert from 'node:assert/strict'
import { test } from 'node:test'
import { BucketFilterSyntaxError, compileGlob, MAX_GLOB_LENGTH } from '../../src/config/bucket-selection.js'

/**
 * The glob matcher (src/config/glob.ts) against the compiler it replaced, kept here as the
 * reference: a glob as an anchored regular expression, `.*` per star. Same syntax, same errors,
 * same answers on ordinary patterns; only the hostile ones differ (they now end).
 */
function referenceGlob(pattern: string): RegExp {
  let source = ''
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index] as string
    if (char === '*') source += '.*'
    else if (char === '?') source += '.'
    else if (char === '\\') {
      const next = pattern[++index]
      if (next === undefined) throw new BucketFilterSyntaxError('lone \\')
      source += escapeRegExp(next)
    } else if (char === '[') {
      const close = pattern.indexOf(']', index + 2)
      if (close < 0) throw new BucketFilterSyntaxError('unterminated [')
      source += referenceClass(pattern.slice(index + 1, close))
      index = close
    } else source += escapeRegExp(char)
  }
  return new RegExp(`^${source}$`, 'u')
}

function referenceClass(body: string): string {
  const negated = body.startsWith('!') || body.startsWith('^')
  const members = negated ? body.slice(1) : body
  if (members === '') throw new BucketFilterSyntaxError('empty [] class')
  let out = ''
  const chars = [...members]
  for (let index = 0; index < chars.length; index++) {
    const char = chars[index] as string
    const to = chars[index + 2]
    if (chars[index + 1] === '-' && to !== undefined) {
      if (to < char) throw new BucketFilterSyntaxError('range runs backwards')
      out += `${escapeClassChar(char)}-${escapeClassChar(to)}`
      index += 2
    } else out += escapeClassChar(char)
  }
  return `[${negated ? '^' : ''}${out}]`
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
const escapeClassChar = (char: string) => (/[\\\]^-]/.test(char) ? `\\${char}` : char)

/** A small deterministic generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let state = seed
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let value = Math.imul(state ^ (state >>> 15), 1 | state)
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296
  }
}

const pick = <T>(next: () => number, items: readonly T[]): T => items[Math.floor(next() * items.length)] as T

/** Characters of bucket names (and a few others), then the pieces of ordinary patterns. */
const CHARACTERS = ['a', 'b', 'c', '-', '.', '0', '1', '9', 'ü', '😀', '\n']
const PIECES = [
  ...CHARACTERS,
  '*',
  '*',
  '?',
  '[ab]',
  '[a-c]',
  '[!a]',
  '[^0-9]',
  '[]a]',
  '[a-]',
  '\\*',
  '\\?',
  '\\[',
]
const NAME_CHARS = [...CHARACTERS, '*', '?', '[', ']', 'x', '\uD83D']

test('the matcher answers as the regular expressions did, on 20,000 ordinary pattern and name pairs', () => {
  const next = random(23)
  let matched = 0
  for (let round = 0; round < 20_000; round++) {
    const pattern = Array.from({ length: 1 + Math.floor(next() * 6) }, () => pick(next, PIECES)).join('')
    const name = Array.from({ length: Math.floor(next() * 9) }, () => pick(next, NAME_CHARS)).join('')
    const expected = referenceGlob(pattern).test(name)
    assert.equal(
      compileGlob(pattern).test(name),
      expected,
      `${JSON.stringify(pattern)} on ${JSON.stringify(name)}`,
    )
    if (expected) matched++
  }
  assert.ok(matched > 300, `enough pairs match to compare both answers (${matched})`)
})

test('the edges the regular expressions had: line terminators, code points, escapes, classes', () => {
  const cases: Array<[string, string]> = [
    ['*', 'a\nb'], // `.` matched no line terminator: nor do * and ?
    ['a?b', 'a\rb'],
    ['a?b', 'a\u2028b'],
    ['a[!x]b', 'a\nb'], // a negated class does
    ['a?b', 'a😀b'], // ? is one code point, not one UTF-16 unit
    ['a??b', 'a😀b'],
    ['[😀-😂]', '😁'],
    ['\\😀', '😀'],
    ['[\\]]', '\\]'], // no escape inside a class: `[\]` then `]`
    ['[a-c-e]', '-'],
    ['[-a]', '-'],
    ['a/b', 'a/b'],
    ['a.b', 'axb'],
    ['(a|b)', '(a|b)'],
    ['', ''],
    ['', 'a'],
    ['***', ''],
  ]
  for (const [pattern, name] of cases)
    assert.equal(
      compileGlob(pattern).test(name),
      referenceGlob(pattern).test(name),
      `${JSON.stringify(pattern)} on ${JSON.stringify(name)}`,
    )
})

test('the same patterns are refused', () => {
  for (const pattern of ['a[', 'a[]', 'a[!]', '[!]a]', '[z-a]', 'trailing\\', '[^]']) {
    assert.throws(() => referenceGlob(pattern), BucketFilterSyntaxError)
    assert.throws(() => compileGlob(pattern), BucketFilterSyntaxError, pattern)
  }
})

test('stars and a character no name holds: an answer, not an endless backtrack', () => {
  const names = ['bucket-00001', 'a'.repeat(63), `${'ab'.repeat(127)}a`]
  for (const pattern of [
    `${'*'.repeat(1000)}!`,
    `${'*a'.repeat(500)}!`,
    `${'a*'.repeat(30)}!`,
    `*${'?*'.repeat(300)}`,
  ]) {
    for (const name of names)
      assert.equal(compileGlob(pattern).test(name), false, `${pattern.slice(0, 20)} on ${name}`)
  }
  assert.equal(compileGlob('*'.repeat(MAX_GLOB_LENGTH)).test('bucket-00001'), true)
  assert.equal(compileGlob(`${'*a'.repeat(6)}*`).test('a'.repeat(63)), true)
})

test('a pattern longer than MAX_GLOB_LENGTH is refused, and the error does not quote it whole', () => {
  assert.doesNotThrow(() => compileGlob('a'.repeat(MAX_GLOB_LENGTH)))
  assert.throws(
    () => compileGlob('a'.repeat(40_000)),
    (error: unknown) =>
      error instanceof BucketFilterSyntaxError &&
      error.message === `a pattern of 40000 characters (at most ${MAX_GLOB_LENGTH})`,
  )
  assert.throws(
    () => compileGlob(`[${'a'.repeat(500)}`),
    (error: unknown) =>
      error instanceof BucketFilterSyntaxError &&
      /^unterminated \[ in "\[a+"\.\.\. \(501 characters\)$/.test(error.message) &&
      error.message.length < 160,
  )
})
