/*
 * Labels of names the fs source reads as bytes (bucket folders, prefix folders): a name that is
 * not valid UTF-8 is escaped, reversibly. Apart from source.ts so the walk threads can use it.
 */
import { isAscii, isUtf8 } from 'node:buffer'

const BACKSLASH = 0x5c

/** `\\` or `\xNN`: the escapes of a bucket label. */
const ESCAPE = /\\(\\|x[0-9a-f]{2})/

/**
 * The `bucket` label of a folder name (bytes). A valid UTF-8 name is its own label unless it holds
 * what reads as an escape (`\\`, `\xNN`); any other name is escaped: each byte that is not part of
 * a valid UTF-8 character becomes `\xNN` (two lowercase hex digits) and each backslash `\\`.
 * Escaped labels always hold an escape and plain ones never do, so two folders never share a
 * label and bucketFolder() finds the folder again. (S3 bucket names hold no backslash, and a name
 * such as `back\slash` stays as it is.)
 */
export function bucketLabel(name: Uint8Array): string {
  const bytes = Buffer.from(name.buffer, name.byteOffset, name.byteLength)
  // Most names: ASCII without a backslash, their own label (no UTF-8 decoding, no escape search).
  if (isAscii(bytes) && !bytes.includes(BACKSLASH)) return bytes.toString('latin1')
  if (isUtf8(bytes)) {
    const text = bytes.toString('utf8')
    if (!ESCAPE.test(text)) return text
  }
  let label = ''
  let index = 0
  while (index < bytes.length) {
    const length = utf8CharLength(bytes, index)
    if (length === 0) {
      label += `\\x${(bytes[index] as number).toString(16).padStart(2, '0')}`
      index++
    } else {
      const char = bytes.toString('utf8', index, index + length)
      label += char === '\\' ? '\\\\' : char
      index += length
    }
  }
  return label
}

/** The folder name (bytes) a bucketLabel() came from; a label without escapes is its own name. */
export function bucketFolder(label: string): Buffer {
  if (!ESCAPE.test(label)) return Buffer.from(label, 'utf8')
  const parts: Buffer[] = []
  let index = 0
  while (index < label.length) {
    const found = ESCAPE.exec(label.slice(index, index + 4))
    if (found?.index === 0) {
      const code = found[1] === '\\' ? BACKSLASH : Number.parseInt(found[1]?.slice(1) ?? '', 16)
      parts.push(Buffer.from([code]))
      index += found[0].length
    } else {
      const char = String.fromCodePoint(label.codePointAt(index) as number)
      parts.push(Buffer.from(char, 'utf8'))
      index += char.length
    }
  }
  return Buffer.concat(parts)
}

/** The length of the valid UTF-8 character at `index` (RFC 3629: no overlongs, no surrogates), or 0. */
function utf8CharLength(bytes: Buffer, index: number): number {
  const lead = bytes[index] as number
  if (lead < 0x80) return 1
  let length: number
  let low = 0x80
  let high = 0xbf
  if (lead >= 0xc2 && lead <= 0xdf) length = 2
  else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3
    if (lead === 0xe0) low = 0xa0
    if (lead === 0xed) high = 0x9f
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4
    if (lead === 0xf0) low = 0x90
    if (lead === 0xf4) high = 0x8f
  } else return 0
  if (index + length > bytes.length) return 0
  for (let offset = 1; offset < length; offset++) {
    const byte = bytes[index + offset] as number
    if (byte < (offset === 1 ? low : 0x80) || byte > (offset === 1 ? high : 0xbf)) return 0
  }
  return length
}
