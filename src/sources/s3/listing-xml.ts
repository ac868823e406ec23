// long: one reader of the two listing answers, its hot path (an entry's fields) kept in one class
/**
 * The two answers a scan reads by the million, ListObjectsV2's `ListBucketResult` and
 * ListObjectVersions' `ListVersionsResult`, read straight from their XML. The SDK spends 11-16 ms
 * of CPU on a 1,000-key page (its parser builds every name and text one character at a time, then
 * maps the tree through the operation's schema and makes a Date per entry); this reads the same
 * page in about a tenth of that, on one pass over the text, keeping only what the scan uses.
 *
 * It reads as the SDK does (so a listing's figures do not change): entities `&amp;`, `&lt;`,
 * `&gt;`, `&quot;`, `&apos;` and numeric ones decoded, CDATA kept as written, comments and
 * processing instructions skipped, text of only whitespace with a line break empty, other
 * whitespace kept; sizes and counts are `Number(text)`, booleans `true` in any case, times the
 * SDK's RFC 3339 rule (as ms since the epoch, without a Date). Unknown elements are skipped (their
 * tags still have to match). Three differences, on answers no store sends: a numeric reference
 * past U+FFFF is decoded as that character (the SDK keeps its low 16 bits), a leading byte order
 * mark is allowed, and an element inside a value or an attribute without quotes is refused (the
 * SDK keeps the value's text, or fails when it has none; it takes any character for a quote). What is not well-formed where it is read (unclosed or mismatched tags, an
 * element inside a value, a field given twice, a bad time) throws a ListingXmlError, as the SDK's
 * parser throws: the bucket fails. Its size is bounded before it gets here (S3_MAX_RESPONSE_BYTES),
 * and nesting is bounded below.
 */

import { storageClassName } from '../../figures/storage-class/names.js'
import { rfc3339Ms, usualRfc3339Ms } from './rfc3339.js'

/** One `<Contents>`, `<Version>` or `<DeleteMarker>`: the fields the scan folds. */
export interface ListedEntry {
  readonly key: string | undefined
  readonly size: number | undefined
  /** LastModified, in ms since the epoch. */
  readonly modifiedMs: number | undefined
  readonly storageClass: string | undefined
  readonly versionId: string | undefined
  readonly isLatest: boolean | undefined
}

export interface ListingPage {
  /** IsTruncated; undefined when the answer holds no listing (an HTML page, no body). */
  readonly truncated: boolean | undefined
  readonly keyCount: number | undefined
  readonly nextContinuationToken: string | undefined
  readonly nextKeyMarker: string | undefined
  readonly nextVersionIdMarker: string | undefined
  /** ListObjectsV2's `<Contents>`, in answer order. */
  readonly contents: ListedEntry[]
  /** ListObjectVersions' `<Version>` and `<DeleteMarker>`, each in answer order. */
  readonly versions: ListedEntry[]
  readonly deleteMarkers: ListedEntry[]
  /** `<CommonPrefixes><Prefix>` (a Delimiter's groups). */
  readonly commonPrefixes: string[]
  /**
   * The answer's last `<Version>` or `<DeleteMarker>`, which the two lists above cannot tell: where
   * the next page must start (a store may name another place; bucket-listing.ts).
   */
  readonly lastVersionEntry: ListedEntry | undefined
}

export type ListingKind = 'ListObjectsV2' | 'ListObjectVersions'

/** The answer is not well-formed XML where it was read, or a field is not what it must be. */
export class ListingXmlError extends Error {
  constructor(message: string, offset: number) {
    super(`malformed listing answer: ${message} (at character ${offset})`)
    this.name = 'ListingXmlError'
  }
}

/** Deeper than this, an answer is refused: S3's answers nest four levels. */
const MAX_DEPTH = 64

/** Reads `xml`, the body of a 2xx answer of `kind`. */
export function parseListing(kind: ListingKind, xml: string): ListingPage {
  return new ListingReader(xml).read(kind)
}

interface MutablePage {
  truncated: boolean | undefined
  keyCount: number | undefined
  nextContinuationToken: string | undefined
  nextKeyMarker: string | undefined
  nextVersionIdMarker: string | undefined
  contents: ListedEntry[]
  versions: ListedEntry[]
  deleteMarkers: ListedEntry[]
  commonPrefixes: string[]
  lastVersionEntry: ListedEntry | undefined
}

const LT = 60 // <
const GT = 62 // >
const SLASH = 47 // /
const BANG = 33 // !
const QUESTION = 63 // ?

class ListingReader {
  readonly #x: string
  #i = 0

  constructor(xml: string) {
    this.#x = xml
  }

  read(kind: ListingKind): ListingPage {
    const page: MutablePage = {
      truncated: undefined,
      keyCount: undefined,
      nextContinuationToken: undefined,
      nextKeyMarker: undefined,
      nextVersionIdMarker: undefined,
      contents: [],
      versions: [],
      deleteMarkers: [],
      commonPrefixes: [],
      lastVersionEntry: undefined,
    }
    const root = this.#prolog()
    if (root === undefined) return page
    // Whatever the root's name, as the SDK reads it: an HTML page or another document has no
    // IsTruncated, so it holds no listing.
    if (this.#openTag()) return page
    const seen = new Set<string>()
    for (let at = this.#nextChild(); at >= 0; at = this.#nextChild()) {
      if (kind === 'ListObjectsV2' && this.#named(at, 'Contents'))
        page.contents.push(this.#entry('Contents', OBJECT))
      else if (kind === 'ListObjectVersions' && this.#named(at, 'Version')) {
        page.lastVersionEntry = this.#entry('Version', VERSION)
        page.versions.push(page.lastVersionEntry)
      } else if (kind === 'ListObjectVersions' && this.#named(at, 'DeleteMarker')) {
        page.lastVersionEntry = this.#entry('DeleteMarker', MARKER)
        page.deleteMarkers.push(page.lastVersionEntry)
      } else if (this.#named(at, 'CommonPrefixes')) {
        const prefix = this.#commonPrefix()
        if (prefix !== undefined) page.commonPrefixes.push(prefix)
      } else {
        const name = this.#peekName(at + 1)
        if (!ROOT_FIELDS[kind].includes(name)) {
          this.#skip(name)
          continue
        }
        if (seen.has(name)) this.#fail(`<${name}> given twice`)
        seen.add(name)
        const text = this.#leaf(name)
        if (name === 'IsTruncated') page.truncated = isTrue(text)
        else if (name === 'KeyCount') page.keyCount = Number(text)
        else if (name === 'NextContinuationToken') page.nextContinuationToken = text
        else if (name === 'NextKeyMarker') page.nextKeyMarker = text
        else page.nextVersionIdMarker = text
      }
    }
    this.#closeTag(root)
    return page
  }

  /** An entry's `fields`; others (ETag, Owner, checksums...) skipped. */
  #entry(name: string, fields: number): ListedEntry {
    let key: string | undefined
    let size: number | undefined
    let modifiedMs: number | undefined
    let storageClass: string | undefined
    let versionId: string | undefined
    let isLatest: boolean | undefined
    if (this.#openTag()) return { key, size, modifiedMs, storageClass, versionId, isLatest }
    const x = this.#x
    for (let at = this.#nextChild(); at >= 0; at = this.#nextChild()) {
      // By the first letter, then the whole name: no name is cut out of the text on this path.
      switch (x.charCodeAt(at + 1)) {
        case 75: // K
          if (fields & KEY && this.#named(at, 'Key')) {
            key = this.#once(key, 'Key')
            continue
          }
          break
        case 76: // L
          if (fields & MODIFIED && this.#named(at, 'LastModified')) {
            if (modifiedMs !== undefined) this.#fail('<LastModified> given twice in one entry')
            modifiedMs = this.#plainTime(at) ?? this.#time(this.#leaf('LastModified'), at)
            continue
          }
          break
        case 69: // E
          if (this.#named(at, 'ETag')) {
            this.#skip('ETag')
            continue
          }
          break
        case 83: // S
          if (fields & SIZE && this.#named(at, 'Size')) {
            if (size !== undefined) this.#fail('<Size> given twice in one entry')
            size = this.#plainCount('Size') ?? Number(this.#leaf('Size'))
            continue
          }
          if (fields & CLASS && this.#named(at, 'StorageClass')) {
            storageClass = storageClassName(this.#once(storageClass, 'StorageClass'))
            continue
          }
          break
        case 86: // V
          if (fields & VERSION_ID && this.#named(at, 'VersionId')) {
            versionId = this.#once(versionId, 'VersionId')
            continue
          }
          break
        case 73: // I
          if (fields & LATEST && this.#named(at, 'IsLatest')) {
            isLatest = isTrue(this.#once(isLatest, 'IsLatest'))
            continue
          }
          break
      }
      this.#skip(this.#peekName(at + 1))
    }
    this.#closeTag(name)
    return { key, size, modifiedMs, storageClass, versionId, isLatest }
  }

  /** The value of a field, refused when the entry already had one. */
  #once(previous: unknown, name: string): string {
    if (previous !== undefined) this.#fail(`<${name}> given twice in one entry`)
    return this.#leaf(name)
  }

  #commonPrefix(): string | undefined {
    let prefix: string | undefined
    if (this.#openTag()) return undefined
    for (let at = this.#nextChild(); at >= 0; at = this.#nextChild()) {
      if (this.#named(at, 'Prefix')) prefix = this.#once(prefix, 'Prefix')
      else this.#skip(this.#peekName(at + 1))
    }
    this.#closeTag('CommonPrefixes')
    return prefix
  }

  /**
   * Before the root element: declaration, comments, DOCTYPE, whitespace. Returns the root's name
   * with the position on its `<`; undefined for an empty body (as the SDK reads it: no listing).
   */
  #prolog(): string | undefined {
    const x = this.#x
    if (x.length === 0) return undefined
    if (x.charCodeAt(0) === 0xfeff) this.#i = 1
    for (;;) {
      this.#skipSpace()
      const at = this.#i
      if (at >= x.length) this.#fail('no root element')
      if (x.startsWith('<?', at)) this.#to('?>', at + 2)
      else if (x.startsWith('<!--', at)) this.#to('-->', at + 4)
      else if (x.slice(at, at + 9).toUpperCase() === '<!DOCTYPE') this.#skipDoctype(at + 9)
      else if (x.charCodeAt(at) === LT) return this.#peekName(at + 1)
      else this.#fail('text before the root element')
    }
  }

  #skipDoctype(from: number): void {
    const x = this.#x
    let depth = 0
    for (let at = from; at < x.length; at++) {
      const c = x[at]
      if (c === '[') depth++
      else if (c === ']') depth--
      else if (c === '>' && depth === 0) {
        this.#i = at + 1
        return
      }
    }
    this.#fail('unclosed DOCTYPE')
  }

  /**
   * Moves to the next child element of the element being read and returns its position (its `<`,
   * where the position stays); -1 at the element's closing tag (the position on its `</`). Text,
   * CDATA, comments and processing instructions between children are skipped.
   */
  #nextChild(): number {
    const x = this.#x
    for (;;) {
      const at = x.indexOf('<', this.#i)
      if (at < 0) this.#fail('unexpected end of the answer')
      this.#i = at
      const next = x.charCodeAt(at + 1)
      if (next === SLASH) return -1
      if (next === BANG) {
        if (x.startsWith('<!--', at)) this.#to('-->', at + 4)
        else if (x.startsWith('<![CDATA[', at)) this.#to(']]>', at + 9)
        else this.#fail('markup that is not an element')
      } else if (next === QUESTION) this.#to('?>', at + 2)
      else return at
    }
  }

  /** Whether the tag at `at` (its `<`) is named `name`. */
  #named(at: number, name: string): boolean {
    const x = this.#x
    return x.startsWith(name, at + 1) && isNameEnd(x.charCodeAt(at + 1 + name.length))
  }

  /** The name of the tag whose name starts at `from` (the position stays on its `<`). */
  #peekName(from: number): string {
    const x = this.#x
    let end = from
    for (; end < x.length; end++) {
      const c = x.charCodeAt(end)
      if (c === GT || c === SLASH || c === 32 || c === 9 || c === 10 || c === 13) break
    }
    if (end === from) this.#fail('a tag without a name')
    return x.slice(from, end)
  }

  /** Reads the opening tag at the position (attributes skipped); true when it closes itself. */
  #openTag(): boolean {
    const x = this.#x
    let at = this.#i + 1
    // The name was peeked: move past it.
    while (at < x.length) {
      const c = x.charCodeAt(at)
      if (c === GT || c === SLASH || c === 32 || c === 9 || c === 10 || c === 13) break
      at++
    }
    for (;;) {
      while (at < x.length && isSpace(x.charCodeAt(at))) at++
      const c = x.charCodeAt(at)
      if (c === GT) {
        this.#i = at + 1
        return false
      }
      if (c === SLASH) {
        if (x.charCodeAt(at + 1) !== GT) this.#fail('expected > after / in a tag')
        this.#i = at + 2
        return true
      }
      if (at >= x.length) this.#fail('unexpected end inside a tag')
      // An attribute: name = "value" or 'value'.
      const equals = x.indexOf('=', at)
      if (equals < 0) this.#fail('an attribute without a value')
      let quoteAt = equals + 1
      while (quoteAt < x.length && isSpace(x.charCodeAt(quoteAt))) quoteAt++
      const quote = x[quoteAt]
      if (quote !== '"' && quote !== "'") this.#fail('an attribute value without quotes')
      const close = x.indexOf(quote, quoteAt + 1)
      if (close < 0) this.#fail('an unclosed attribute value')
      at = close + 1
    }
  }

  /** The closing tag of `name` at the position (`</name>`, whitespace allowed before `>`). */
  #closeTag(name: string): void {
    const x = this.#x
    const at = this.#i
    if (x.startsWith(name, at + 2) && x.charCodeAt(at + 2 + name.length) === GT) {
      this.#i = at + 3 + name.length
      return
    }
    const end = x.indexOf('>', at + 2)
    if (end < 0) this.#fail(`unclosed <${name}>`)
    const closing = x.slice(at + 2, end).trim()
    if (closing !== name) this.#fail(`<${name}> closed by </${closing.slice(0, 64)}>`)
    this.#i = end + 1
  }

  /** The text of the element `name` at the position: its value, as the SDK reads a value. */
  #leaf(name: string): string {
    const x = this.#x
    // The usual value: <name>text</name>, without markup inside.
    const from = this.#i + 1 + name.length
    if (x.charCodeAt(from) === GT) {
      const end = x.indexOf('<', from + 1)
      const closeEnd = end + 2 + name.length
      if (
        end > 0 &&
        x.charCodeAt(end + 1) === SLASH &&
        x.charCodeAt(closeEnd) === GT &&
        x.startsWith(name, end + 2)
      ) {
        this.#i = closeEnd + 1
        const part = x.slice(from + 1, end)
        const text = part.includes('&') ? this.#decode(part) : part
        return text.includes('\n') && text.trim() === '' ? '' : text
      }
    }
    if (this.#openTag()) return ''
    let text = ''
    for (;;) {
      const at = x.indexOf('<', this.#i)
      if (at < 0) this.#fail(`unclosed <${name}>`)
      if (at > this.#i) {
        const part = x.slice(this.#i, at)
        text += part.includes('&') ? this.#decode(part) : part
      }
      this.#i = at
      const next = x.charCodeAt(at + 1)
      if (next === SLASH) break
      if (x.startsWith('<![CDATA[', at)) {
        const end = this.#to(']]>', at + 9)
        text += x.slice(at + 9, end)
      } else if (x.startsWith('<!--', at)) this.#to('-->', at + 4)
      else if (next === QUESTION) this.#to('?>', at + 2)
      else this.#fail(`an element inside <${name}>`)
    }
    this.#closeTag(name)
    // The SDK's rule: text of only whitespace is empty when it spans lines (indentation).
    return text.includes('\n') && text.trim() === '' ? '' : text
  }

  /** Skips the element `name` at the position, checking its tags match. */
  #skip(name: string): void {
    if (this.#openTag()) return
    // An element of text only (ETag...): to its closing tag at once.
    const x = this.#x
    const end = x.indexOf('<', this.#i)
    if (end > 0 && x.charCodeAt(end + 1) === SLASH) {
      this.#i = end
      this.#closeTag(name)
    } else this.#skipContent(name)
  }

  /**
   * `<name>digits</name>` at the position, up to 15 digits: its number, read in place (the
   * position moves past it). Undefined for any other form, the position unmoved.
   */
  #plainCount(name: string): number | undefined {
    const x = this.#x
    const from = this.#i + name.length + 2
    if (x.charCodeAt(from - 1) !== GT) return undefined
    let value = 0
    let at = from
    for (; at < from + 16; at++) {
      const digit = x.charCodeAt(at) - 48
      if (!(digit >= 0 && digit <= 9)) break
      value = value * 10 + digit
    }
    if (at === from || at - from > 15 || !this.#closesAt(at, name)) return undefined
    this.#i = at + name.length + 3
    return value
  }

  /**
   * `<LastModified>` with a time in the usual form at the position: its time, read in place (the
   * position moves past it). Undefined for any other form, the position unmoved.
   */
  #plainTime(at: number): number | undefined {
    const x = this.#x
    const from = at + 14
    if (x.charCodeAt(from - 1) !== GT) return undefined
    const end = x.indexOf('<', from)
    if (end < 0 || !this.#closesAt(end, 'LastModified')) return undefined
    const time = usualRfc3339Ms(x, from, end)
    if (time !== undefined) this.#i = end + 15
    return time
  }

  /** Whether `</name>` stands at `at`. */
  #closesAt(at: number, name: string): boolean {
    const x = this.#x
    return (
      x.charCodeAt(at) === LT &&
      x.charCodeAt(at + 1) === SLASH &&
      x.charCodeAt(at + 2 + name.length) === GT &&
      x.startsWith(name, at + 2)
    )
  }

  /** Skips to after `</name>` of the element whose opening tag was read. */
  #skipContent(name: string): void {
    const open = [name]
    while (open.length > 0) {
      const at = this.#nextChild()
      if (at < 0) {
        this.#closeTag(open.pop() as string)
        continue
      }
      const child = this.#peekName(at + 1)
      if (!this.#openTag()) {
        if (open.length >= MAX_DEPTH) this.#fail(`elements nested deeper than ${MAX_DEPTH}`)
        open.push(child)
      }
    }
  }

  /** The position of `stop` from `from`; the position moves past it. */
  #to(stop: string, from: number): number {
    const at = this.#x.indexOf(stop, from)
    if (at < 0) this.#fail(`expected "${stop}"`)
    this.#i = at + stop.length
    return at
  }

  #skipSpace(): void {
    const x = this.#x
    while (this.#i < x.length && isSpace(x.charCodeAt(this.#i))) this.#i++
  }

  #decode(text: string): string {
    try {
      return text.replace(ENTITY, decodeEntity)
    } catch {
      return this.#fail('a character reference past U+10FFFF')
    }
  }

  /** A LastModified in ms; the field's position names where it was refused. */
  #time(text: string, at: number): number {
    const time = rfc3339Ms(text)
    if (time === undefined) {
      this.#i = at
      this.#fail(`<LastModified> ${JSON.stringify(text.slice(0, 40))} is not an RFC 3339 time the SDK reads`)
    }
    return time
  }

  #fail(message: string): never {
    throw new ListingXmlError(message, this.#i)
  }
}

/** The single fields read at the top of each answer (the SDK's output members of each). */
const ROOT_FIELDS: Record<ListingKind, readonly string[]> = {
  ListObjectsV2: ['IsTruncated', 'KeyCount', 'NextContinuationToken'],
  ListObjectVersions: ['IsTruncated', 'NextKeyMarker', 'NextVersionIdMarker'],
}

/** Which fields an entry has, as the SDK's shapes have them (bits); the others are skipped. */
const KEY = 1
const SIZE = 2
const MODIFIED = 4
const CLASS = 8
const VERSION_ID = 16
const LATEST = 32
/** Object: Contents; ObjectVersion: Version; DeleteMarkerEntry: DeleteMarker. */
const OBJECT = KEY | SIZE | MODIFIED | CLASS
const VERSION = OBJECT | VERSION_ID | LATEST
const MARKER = KEY | MODIFIED | VERSION_ID | LATEST

function isNameEnd(c: number): boolean {
  return c === GT || c === SLASH || isSpace(c)
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13
}

function isTrue(text: string): boolean {
  return text === 'true' || (text.length === 4 && text.toLowerCase() === 'true')
}

/** The SDK's entity rule (xml-builder's decodeEntities): unknown named entities become nothing. */
const ENTITY = /&(?:#x([0-9a-fA-F]{1,6})|#(\d{1,7})|([a-zA-Z][a-zA-Z0-9]{0,30}));/g
const NAMED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }

function decodeEntity(
  _: string,
  hex: string | undefined,
  decimal: string | undefined,
  named: string,
): string {
  if (hex) return String.fromCodePoint(Number.parseInt(hex, 16))
  if (decimal) return String.fromCodePoint(Number.parseInt(decimal, 10))
  return Object.hasOwn(NAMED, named) ? (NAMED[named] as string) : ''
}
