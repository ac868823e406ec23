import { createHash, timingSafeEqual } from 'node:crypto'
import { TOKEN_PATTERN } from '../config/env/security.js'
import { ConfigError } from '../config/load.js'
import { shownValue } from '../config/shown-value.js'
import type { RequestAuthenticator } from './access.js'

const TOKEN = new RegExp(TOKEN_PATTERN)

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest()
}

/**
 * The token clients must present. Only its digest is kept; a presented token is hashed and the
 * two digests compared with timingSafeEqual, so the comparison takes the same time whatever the
 * length or the first differing character of what was sent.
 */
export class BearerToken {
  #digest: Buffer

  constructor(token: string) {
    this.#digest = digest(token)
  }

  /** Replaces the token (a rotated token file); connections already open are not affected. */
  replace(token: string): void {
    this.#digest = digest(token)
  }

  matches(presented: string | undefined): boolean {
    // Hash even when nothing was presented, so a missing header costs what a wrong one does.
    const equal = timingSafeEqual(digest(presented ?? ''), this.#digest)
    return equal && presented !== undefined
  }
}

/** The bearer token's `WWW-Authenticate` challenge. */
export const AUTH_CHALLENGE = 'Bearer realm="objstore-exporter"'

/** Requests must carry `token` as `Authorization: Bearer <token>`. */
export function bearerAuthenticator(token: BearerToken): RequestAuthenticator {
  return {
    scheme: 'bearer',
    challenge: AUTH_CHALLENGE,
    check: (header) => (token.matches(bearerCredentials(header)) ? 'allowed' : 'refused'),
  }
}

/** The token of `Authorization: Bearer <token>` (scheme case-insensitive, RFC 7235), if any. */
export function bearerCredentials(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^bearer[ \t]+(\S+)[ \t]*$/i.exec(header)
  return match?.[1]
}

/**
 * The token of a token file: surrounding whitespace (the newline `echo` and editors add) is
 * ignored. An empty file or one holding more than one word is refused; its content is never quoted.
 */
export function tokenFromFile(path: string, content: Buffer): string {
  const token = content.toString('utf8').trim()
  const problem = (reason: string) =>
    new ConfigError([`METRICS_AUTH_TOKEN_FILE=${shownValue(path)}: ${reason}`])
  if (token === '') throw problem('the file is empty')
  if (!TOKEN.test(token)) throw problem('the token must be printable ASCII characters without spaces')
  return token
}
