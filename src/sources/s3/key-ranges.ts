/**
 * Where to split one bucket's listing so that its parts can be listed at once (issue 15): the
 * plan is a sorted list of boundary strings; part i holds the keys after boundary i-1 up to and
 * including boundary i (the first part from the start, the last to the end), so every key is in
 * exactly one part whatever the boundaries are, and a key's versions are never split (a part ends
 * between keys, never inside one). Probes only decide where parts end, for balance:
 *
 * - delimiter probing: a ListObjectsV2 page with Delimiter `/` names a level's common prefixes;
 *   each is a boundary (its keys follow it), and levels are probed breadth first while too few
 *   boundaries are known;
 * - flat keys (a level whose page is full of keys): one-key probes at StartAfter positions find
 *   where the keys' characters change: from the page's first and last key, climb to the shortest
 *   prefix every later key still shares, then step through the characters that follow it (each
 *   probe starts after everything under the last character seen), level after level.
 *
 * Keys are compared as S3 orders them, by UTF-8 bytes (compareKeys).
 */

/** Greater than any character a key can hold: StartAfter `g + MAX_CHAR` is past every key under `g`. */
const MAX_CHAR = '\u{10FFFF}'

/** UTF-8 byte order, which is code point order; JS compares UTF-16 units, which differ past U+FFFF. */
export function compareKeys(a: string, b: string): number {
  if (a === b) return 0
  const length = Math.min(a.length, b.length)
  for (let index = 0; index < length; index++) {
    const x = a.charCodeAt(index)
    const y = b.charCodeAt(index)
    if (x !== y) return codePointRank(x) - codePointRank(y)
  }
  return a.length - b.length
}

/** Surrogates (code points above U+FFFF) after U+E000-U+FFFF, as their code points sort. */
function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000
  return unit >= 0xe000 ? unit - 0x800 : unit
}

/**
 * The index of the range holding `key` among ranges ending at `throughs` (sorted; a last range
 * runs to the end): the first whose end is at or after it.
 */
export function rangeHolding(throughs: readonly string[], key: string): number {
  return firstEnd(throughs, (through) => compareKeys(through, key) >= 0)
}

/** The index of the first range holding keys after `after`: the first whose end is past it. */
export function rangeAfter(throughs: readonly string[], after: string): number {
  return firstEnd(throughs, (through) => compareKeys(through, after) > 0)
}

/** The first of the sorted `throughs` that `reaches` (false for those before it), by binary search. */
function firstEnd(throughs: readonly string[], reaches: (through: string) => boolean): number {
  let low = 0
  let high = throughs.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (reaches(throughs[middle] as string)) high = middle
    else low = middle + 1
  }
  return low
}

/** Keys after `after` (from the start when undefined) up to and including `through` (to the end). */
export interface KeyRange {
  readonly after: string | undefined
  readonly through: string | undefined
}

/** Whether `key` lies beyond the range's end (the part's listing stops there). */
export function pastRange(key: string, range: KeyRange): boolean {
  return range.through !== undefined && compareKeys(key, range.through) > 0
}

/** The parts `boundaries` (sorted, distinct) cut the keys after `after` into. */
export function rangesFrom(after: string | undefined, boundaries: readonly string[]): KeyRange[] {
  const ranges: KeyRange[] = []
  let start = after
  for (const boundary of boundaries) {
    ranges.push({ after: start, through: boundary })
    start = boundary
  }
  ranges.push({ after: start, through: undefined })
  return ranges
}

export interface ProbeRequest {
  readonly prefix: string
  readonly startAfter: string
  /** `/` for a delimiter probe; undefined for a one-key probe. */
  readonly delimiter: '/' | undefined
  readonly maxKeys: number
}

export interface ProbeAnswer {
  readonly keys: readonly string[]
  readonly prefixes: readonly string[]
  readonly truncated: boolean
}

export interface PlanOptions {
  /** The keys up to this one are listed already: boundaries lie after it. */
  readonly after: string
  /** Parts at most: boundaries at most one fewer. */
  readonly maxRanges: number
  /** Probe requests at most. */
  readonly maxProbes: number
  /** One ListObjectsV2 request. */
  probe(request: ProbeRequest): Promise<ProbeAnswer>
}

export interface Plan {
  /** Sorted, distinct, all after `after`; at most maxRanges - 1. */
  readonly boundaries: string[]
  readonly probes: number
}

/** Probes the keys after `options.after` and says where to split them. */
export async function planBoundaries(options: PlanOptions): Promise<Plan> {
  const planner = new Planner(options)
  await planner.run()
  return { boundaries: planner.chosen(), probes: planner.probes }
}

interface FlatLevel {
  readonly prefix: string
  readonly first: string
  readonly last: string
}

class Planner {
  probes = 0
  readonly #options: PlanOptions
  readonly #found = new Set<string>()
  readonly #wanted: number

  constructor(options: PlanOptions) {
    this.#options = options
    this.#wanted = Math.max(0, options.maxRanges - 1)
  }

  async run(): Promise<void> {
    if (this.#wanted === 0) return
    const flat = await this.#delimiterLevels()
    for (const level of flat) {
      if (!this.#more()) break
      await this.#splitFlat(level)
    }
  }

  /** Breadth first over common prefixes; the levels full of keys are returned for splitting. */
  async #delimiterLevels(): Promise<FlatLevel[]> {
    const flat: FlatLevel[] = []
    const frontier = ['']
    for (let index = 0; index < frontier.length && this.#more(); index++) {
      const prefix = frontier[index] as string
      const answer = await this.#probe({
        prefix,
        startAfter: this.#after(prefix),
        delimiter: '/',
        maxKeys: 1000,
      })
      for (const common of answer.prefixes) {
        if (!common.startsWith(prefix) || common === prefix) continue
        this.#add(common)
        frontier.push(common)
      }
      const first = answer.keys[0]
      const last = answer.keys.at(-1)
      if (answer.truncated && first !== undefined && last !== undefined) flat.push({ prefix, first, last })
    }
    return flat
  }

  /**
   * A level of many keys: climb from the prefix its first page's keys share to the one every key
   * of the level shares, noting each character change found, then step through the characters.
   */
  async #splitFlat(level: FlatLevel): Promise<void> {
    let common = level.first.slice(0, sharedLength(level.first, level.last))
    while (common.length > level.prefix.length && this.#more()) {
      const next = await this.#nextKey(level.prefix, common + MAX_CHAR)
      if (next === undefined) break
      const shared = sharedLength(common, next)
      if (shared >= common.length) break
      this.#add(next.slice(0, shared + 1))
      common = common.slice(0, shared)
    }
    // Breadth first: the characters after `common`, then after each of those.
    const groups: Array<{ group: string; from: string }> = [{ group: common, from: level.first }]
    for (let index = 0; index < groups.length && this.#more(); index++) {
      const { group, from: start } = groups[index] as { group: string; from: string }
      groups.push(...(await this.#children(group, start)))
    }
  }

  /** The groups `group + character` that hold keys, from the one of `from` on. */
  async #children(group: string, from: string): Promise<Array<{ group: string; from: string }>> {
    const children: Array<{ group: string; from: string }> = []
    let key: string | undefined = from
    while (key !== undefined && this.#more()) {
      if (!key.startsWith(group) || key.length <= group.length) break
      const child = group + String.fromCodePoint(key.codePointAt(group.length) as number)
      if (children.length > 0 && compareKeys(child, (children.at(-1) as { group: string }).group) <= 0) break
      children.push({ group: child, from: key })
      if (children.length > 1) this.#add(child)
      key = await this.#nextKey(group, child + MAX_CHAR)
    }
    return children
  }

  async #nextKey(prefix: string, startAfter: string): Promise<string | undefined> {
    const answer = await this.#probe({
      prefix,
      startAfter: maxKey(startAfter, this.#options.after),
      delimiter: undefined,
      maxKeys: 1,
    })
    return answer.keys[0]
  }

  #probe(request: ProbeRequest): Promise<ProbeAnswer> {
    this.probes++
    return this.#options.probe(request)
  }

  /** Where a probe under `prefix` starts: after the keys listed already. */
  #after(prefix: string): string {
    return maxKey(prefix, this.#options.after)
  }

  #add(boundary: string): void {
    if (compareKeys(boundary, this.#options.after) > 0) this.#found.add(boundary)
  }

  #more(): boolean {
    return this.probes < this.#options.maxProbes && this.#found.size < this.#wanted
  }

  /**
   * At most `wanted` boundaries: the shallowest first (fewer characters: the coarser split), and
   * where a depth does not fit whole, evenly spread over it.
   */
  chosen(): string[] {
    const byLength = new Map<number, string[]>()
    for (const boundary of this.#found) {
      const list = byLength.get(boundary.length) ?? []
      list.push(boundary)
      byLength.set(boundary.length, list)
    }
    const kept: string[] = []
    for (const length of [...byLength.keys()].sort((a, b) => a - b)) {
      const list = (byLength.get(length) as string[]).sort(compareKeys)
      const room = this.#wanted - kept.length
      if (room <= 0) break
      if (list.length <= room) kept.push(...list)
      else
        for (let index = 0; index < room; index++)
          kept.push(list[Math.floor((index * list.length) / room)] as string)
    }
    return kept.sort(compareKeys)
  }
}

function maxKey(a: string, b: string): string {
  return compareKeys(a, b) >= 0 ? a : b
}

/** UTF-16 units two keys share at their start, never ending inside a surrogate pair. */
function sharedLength(a: string, b: string): number {
  const length = Math.min(a.length, b.length)
  let index = 0
  while (index < length && a.charCodeAt(index) === b.charCodeAt(index)) index++
  if (index > 0 && index < a.length) {
    const unit = a.charCodeAt(index - 1)
    if (unit >= 0xd800 && unit <= 0xdbff) index--
  }
  return index
}
