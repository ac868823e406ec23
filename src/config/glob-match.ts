/**
 * Runs a name through a glob's tokens (glob.ts) without backtracking: the positions of the
 * pattern reachable after each character are kept as a set (Thompson's construction), each
 * character moves each of them at most one step, so a name costs at most its length times the
 * pattern's. A run of stars is one token, and a name too short for the tokens that take one
 * character each is refused before any step. What comes before the first star and after the last
 * takes one character a token, so it is compared in place first (`logs-*` costs what a string
 * comparison does), and only what lies between runs through the set.
 */

export const STAR = 0
export const ANY = 1
export const CHAR = 2
export const CLASS = 3

export interface Token {
  readonly kind: typeof STAR | typeof ANY | typeof CHAR | typeof CLASS
  /** CHAR: the code point. */
  readonly codePoint: number
  /** CLASS: `[!...]` or `[^...]`. */
  readonly negated: boolean
  /** CLASS: from, to, from, to... (inclusive code points). */
  readonly ranges: readonly number[]
}

export class GlobMatcher {
  readonly #tokens: readonly Token[]
  /** Tokens other than stars: each takes one character, so a shorter name cannot match. */
  readonly #fixed: number
  readonly #starred: boolean
  /** Tokens before the first star, and after the last: one character each. */
  readonly #head: number
  readonly #tail: number
  /** Where the part between the first star and the last ends (the first of the tail). */
  readonly #accept: number
  /** That part is a single star: any run without a line terminator. */
  readonly #oneStar: boolean
  // The sets of positions, reused by every test (it is synchronous): a position is in the set
  // being built when its stamp is the current step's.
  #current: Int32Array
  #next: Int32Array
  readonly #stamps: Uint32Array
  #step = 0

  constructor(tokens: readonly Token[]) {
    this.#tokens = tokens
    this.#fixed = tokens.filter((token) => token.kind !== STAR).length
    this.#starred = this.#fixed < tokens.length
    const firstStar = tokens.findIndex((token) => token.kind === STAR)
    const lastStar = tokens.findLastIndex((token) => token.kind === STAR)
    this.#head = firstStar < 0 ? tokens.length : firstStar
    this.#tail = firstStar < 0 ? 0 : tokens.length - 1 - lastStar
    this.#accept = tokens.length - this.#tail
    this.#oneStar = firstStar >= 0 && firstStar === lastStar
    this.#current = new Int32Array(tokens.length + 1)
    this.#next = new Int32Array(tokens.length + 1)
    this.#stamps = new Uint32Array(tokens.length + 1)
  }

  /** Whether the whole of `name` matches. */
  test(name: string): boolean {
    // A code point is one or two UTF-16 units.
    if (name.length < this.#fixed || (!this.#starred && name.length > 2 * this.#fixed)) return false
    const tokens = this.#tokens
    let start = 0
    for (let position = 0; position < this.#head; position++) {
      if (start >= name.length) return false
      const codePoint = name.codePointAt(start) as number
      if (!takes(tokens[position] as Token, codePoint)) return false
      start += codePoint > 0xffff ? 2 : 1
    }
    if (!this.#starred) return start === name.length
    let end = name.length
    for (let position = tokens.length - 1; position >= this.#accept; position--) {
      if (end <= start) return false
      const codePoint = codePointBefore(name, end, start)
      if (!takes(tokens[position] as Token, codePoint)) return false
      end -= codePoint > 0xffff ? 2 : 1
    }
    if (this.#oneStar) {
      for (let index = start; index < end; index++) if (isLineTerminator(name.charCodeAt(index))) return false
      return true
    }
    return this.#between(name, start, end)
  }

  /** Whether name[start, end) matches the tokens from the first star to the last. */
  #between(name: string, start: number, end: number): boolean {
    const accept = this.#accept
    let count = this.#reach(this.#current, 0, this.#nextStep(), this.#head)
    for (let index = start; index < end; ) {
      const codePoint = name.codePointAt(index) as number
      index += codePoint > 0xffff ? 2 : 1
      const step = this.#nextStep()
      let reached = 0
      for (let slot = 0; slot < count; slot++) {
        const position = this.#current[slot] as number
        if (position === accept) continue
        const token = this.#tokens[position] as Token
        // A star takes the character and stays; any other token takes it and moves on.
        if (token.kind === STAR) {
          if (!isLineTerminator(codePoint)) reached = this.#reach(this.#next, reached, step, position)
        } else if (takes(token, codePoint)) reached = this.#reach(this.#next, reached, step, position + 1)
      }
      if (reached === 0) return false
      ;[this.#current, this.#next] = [this.#next, this.#current]
      count = reached
    }
    return this.#stamps[accept] === this.#step
  }

  /** Adds `position` to `set` (and the one after it when it is a star, which may take nothing). */
  #reach(set: Int32Array, count: number, step: number, position: number): number {
    let size = count
    for (let at = position; at < set.length && this.#stamps[at] !== step; at++) {
      this.#stamps[at] = step
      set[size++] = at
      if (this.#tokens[at]?.kind !== STAR) break
    }
    return size
  }

  #nextStep(): number {
    if (this.#step === 0xffffffff) {
      this.#stamps.fill(0)
      this.#step = 0
    }
    return ++this.#step
  }
}

/** The code point that ends at `end` (a surrogate pair read backwards, not before `start`). */
function codePointBefore(text: string, end: number, start: number): number {
  const last = text.charCodeAt(end - 1)
  if (last < 0xdc00 || last > 0xdfff || end - 2 < start) return last
  const first = text.charCodeAt(end - 2)
  return first >= 0xd800 && first <= 0xdbff ? (text.codePointAt(end - 2) as number) : last
}

/** As a regular expression's `.`, which the globs were compiled to before, `*` and `?` skip these. */
function isLineTerminator(codePoint: number): boolean {
  return codePoint === 0x0a || codePoint === 0x0d || codePoint === 0x2028 || codePoint === 0x2029
}

/** Whether a token other than a star takes the character `codePoint`. */
function takes(token: Token, codePoint: number): boolean {
  if (token.kind === CHAR) return token.codePoint === codePoint
  if (token.kind === ANY) return !isLineTerminator(codePoint)
  let found = false
  for (let index = 0; index < token.ranges.length && !found; index += 2)
    found = codePoint >= (token.ranges[index] as number) && codePoint <= (token.ranges[index + 1] as number)
  return found !== token.negated
}
