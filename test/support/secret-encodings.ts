/**
 * The encoded forms a secret takes on its way out of a process (a URL, a Basic header, a dump, a
 * JSON document), written here independently of src/logging/secret-forms.ts: what a hostile store
 * echoes, and what a sweep must not find in any output.
 */

/** Bytes around the secret in the base64 blobs, so its offset in them is 0, 1 or 2 mod 3. */
const BEFORE = ['', 'x', 'xy'] as const
const AFTER = 'tail-bytes'

const lowerHexEscapes = (text: string) => text.replace(/%[0-9A-F]{2}/g, (percent) => percent.toLowerCase())

/** Every non-alphanumeric character as a JSON \u escape, in lower or upper hex. */
const unicodeEscaped = (secret: string, upper: boolean) =>
  secret.replace(/[^A-Za-z0-9]/g, (char) => {
    const hex = char.charCodeAt(0).toString(16).padStart(4, '0')
    return `\\u${upper ? hex.toUpperCase() : hex}`
  })

/** Each form of `secret` by name, as a store would write it inside its own text. */
export function encodedForms(secret: string): Record<string, string> {
  const bytes = Buffer.from(secret)
  const forms: Record<string, string> = {
    raw: secret,
    'url-upper': encodeURIComponent(secret),
    'url-lower': lowerHexEscapes(encodeURIComponent(secret)),
    'url-form-plus': new URLSearchParams({ t: secret }).toString().slice('t='.length),
    'json-quoted': JSON.stringify(secret).slice(1, -1).replaceAll('/', '\\/'),
    'json-u-lower': unicodeEscaped(secret, false),
    'json-u-upper': unicodeEscaped(secret, true),
    'hex-lower': bytes.toString('hex'),
    'hex-upper': bytes.toString('hex').toUpperCase(),
    'base64-padded': bytes.toString('base64'),
    'base64url-unpadded': bytes.toString('base64url'),
  }
  for (const [offset, before] of BEFORE.entries()) {
    const blob = Buffer.concat([Buffer.from(before), bytes, Buffer.from(AFTER)])
    forms[`base64-offset${offset}`] = blob.toString('base64')
    forms[`base64url-offset${offset}`] = blob.toString('base64url')
  }
  return forms
}

/**
 * The base64 characters that depend on the secret's bytes alone when it starts `offset` bytes
 * into the encoded data: the part of its encoding every blob holding it at that alignment shares.
 */
function stableBase64(bytes: Buffer, offset: number, alphabet: 'base64' | 'base64url'): string {
  const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString(alphabet)
  // Character j covers bits [6j, 6j + 6); the secret covers [8 offset, 8 (offset + length)).
  return encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6))
}

/**
 * What must be absent from an output for `secret` not to have leaked in `form`: the form itself,
 * (base64 embedded in a longer blob: its stable characters), and each as JSON escapes it again
 * (a log line quoting a text that held it).
 */
export function leakNeedles(secret: string): Record<string, string[]> {
  const bytes = Buffer.from(secret)
  const needles: Record<string, string[]> = {}
  for (const [name, form] of Object.entries(encodedForms(secret))) {
    const offset = /offset(\d)$/.exec(name)?.[1]
    const core =
      offset === undefined
        ? form
        : stableBase64(bytes, Number(offset), name.startsWith('base64url') ? 'base64url' : 'base64')
    needles[name] = [...new Set([core, JSON.stringify(core).slice(1, -1)])]
  }
  return needles
}

/** `marker:form` for each marker found in `text` in some form. */
export function findLeaks(text: string, markers: Readonly<Record<string, string>>): string[] {
  const found: string[] = []
  for (const [marker, secret] of Object.entries(markers))
    for (const [form, needles] of Object.entries(leakNeedles(secret)))
      if (needles.some((needle) => text.includes(needle))) found.push(`${marker}:${form}`)
  return found
}

/** A text quoting each form of `secret` once, labelled, as an error message would. */
export function echoOfForms(secret: string): string {
  return Object.entries(encodedForms(secret))
    .map(([name, form]) => `${name}=${form}`)
    .join(' ')
}
