/**
 * Shell globs for one bucket name, matched without backtracking. Compiled to a regular expression
 * with `.*` per star, a pattern of 1,000 stars and a character no name holds made V8 backtrack
 * exponentially and froze the process (22 stars against `bucket-00001`: 18 s), and a pattern of
 * 32k characters was too large to compile. Here a pattern is a list of tokens (this file) that a
 * name is run through without backtracking (glob-match.ts): time is at most the name's length
 * times the pattern's, whatever the pattern.
 *
 * The syntax is the shell's for one name: `*` (any run), `?` (one character), `[abc]`, `[a-z]`,
 * `[!abc]` or `[^abc]` (a class; a `]` right after the `[` is a member) and `\x` for a literal x.
 * Characters are code points. As the regular expressions did (their `.`), `*` and `?` match no
 * line terminator (\n, \r, U+2028, U+2029); a negated class does.
 */

import { ANY, CHAR, CLASS, GlobMatcher, STAR, type Token } from './glob-match.js'
import { shownValue as shown } from './shown-value.js'

export class BucketFilterSyntaxError extends Error {}

/** The longest pattern accepted, in UTF-16 units (BUCKETS_INCLUDE and ?match= alike). */
export const MAX_GLOB_LENGTH = 1024

/** A compiled glob: whether a whole name matches. */
export interface Glob {
  /** The pattern as written. */
  readonly pattern: string
  test(name: string): boolean
}

/** Compiles `pattern`; throws BucketFilterSyntaxError on a malformed or over-long one. */
export function compileGlob(pattern: string): Glob {
  const matcher = new GlobMatcher(tokenize(pattern))
  return Object.freeze({ pattern, test: (name: string) => matcher.test(name) })
}

function tokenize(pattern: string): Token[] {
  if (pattern.length > MAX_GLOB_LENGTH)
    throw new BucketFilterSyntaxError(
      `a pattern of ${pattern.length} characters (at most ${MAX_GLOB_LENGTH})`,
    )
  const tokens: Token[] = []
  for (let index = 0; index < pattern.length; ) {
    const codePoint = pattern.codePointAt(index) as number
    const char = String.fromCodePoint(codePoint)
    if (char === '*') {
      // `**` is `*`: one star token, so a run of stars costs what one does.
      if (tokens.at(-1)?.kind !== STAR) tokens.push(token(STAR))
      index++
    } else if (char === '?') {
      tokens.push(token(ANY))
      index++
    } else if (char === '\\') {
      const escaped = pattern.codePointAt(index + 1)
      if (escaped === undefined) throw new BucketFilterSyntaxError(`${shown(pattern)} ends with a lone \\`)
      tokens.push(token(CHAR, escaped))
      index += 1 + String.fromCodePoint(escaped).length
    } else if (char === '[') {
      const close = pattern.indexOf(']', index + 2)
      if (close < 0) throw new BucketFilterSyntaxError(`unterminated [ in ${shown(pattern)}`)
      tokens.push(classToken(pattern.slice(index + 1, close), pattern))
      index = close + 1
    } else {
      tokens.push(token(CHAR, codePoint))
      index += char.length
    }
  }
  return tokens
}

function classToken(body: string, pattern: string): Token {
  const negated = body.startsWith('!') || body.startsWith('^')
  const members = [...(negated ? body.slice(1) : body)].map((char) => char.codePointAt(0) as number)
  if (members.length === 0) throw new BucketFilterSyntaxError(`empty [] class in ${shown(pattern)}`)
  const ranges: number[] = []
  const hyphen = 0x2d
  for (let index = 0; index < members.length; index++) {
    const from = members[index] as number
    const to = members[index + 2]
    if (members[index + 1] === hyphen && to !== undefined) {
      if (to < from)
        throw new BucketFilterSyntaxError(
          `range ${String.fromCodePoint(from)}-${String.fromCodePoint(to)} runs backwards in ${shown(pattern)}`,
        )
      ranges.push(from, to)
      index += 2
    } else ranges.push(from, from)
  }
  return token(CLASS, 0, negated, ranges)
}

/** Every token has one shape (the matcher's loop stays monomorphic). */
function token(kind: Token['kind'], codePoint = 0, negated = false, ranges: readonly number[] = []): Token {
  return { kind, codePoint, negated, ranges }
}
