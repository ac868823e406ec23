import { createHmac, randomBytes } from 'node:crypto'
import type { AccessVerdict, RequestAuthenticator } from './access.js'
import type { BcryptChecker } from './bcrypt-checker.js'

/** A bcrypt hash as htpasswd, Go and bcryptjs write it: $2a$, $2b$ or $2y$, cost 04 to 31. */
export const BCRYPT_HASH = /^\$2[aby]\$(0[4-9]|[12]\d|3[01])\$[./A-Za-z0-9]{53}$/

export interface BasicAuthOptions {
  /** How many verified credentials are remembered (the least recently used are forgotten). */
  readonly cacheSize?: number
  /** How many different credentials may wait for bcrypt at once; more are answered `busy`. */
  readonly maxPending?: number
}

/** User and password of `Authorization: Basic base64(user:password)` (RFC 7617), if any. */
export function basicCredentials(header: string | undefined): { user: string; password: string } | undefined {
  const match = header === undefined ? null : /^basic[ \t]+([A-Za-z0-9+/]+={0,2})[ \t]*$/i.exec(header)
  if (!match?.[1]) return undefined
  const decoded = Buffer.from(match[1], 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) return undefined
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}

/**
 * The web configuration file's `basic_auth_users`: names and bcrypt hashes. bcrypt is slow on
 * purpose (150-230 ms here at cost 10), and Prometheus sends the same credentials every scrape,
 * so credentials that verified are remembered and a scrape pays one HMAC instead. What is
 * remembered is an HMAC of user and password under a key made at start and never kept anywhere
 * else: neither the password nor a digest one could test guesses against offline. Only successes
 * are remembered; a wrong password pays bcrypt every time, serialised on one thread.
 *
 * Timing says nothing about which users exist: an unknown user's password is compared with a
 * real user's hash (same cost) and refused whatever the result. bcryptjs compares the hashes in
 * constant time.
 */
export class BasicAuthUsers implements RequestAuthenticator {
  readonly scheme = 'basic'
  readonly challenge = 'Basic realm="objstore-exporter", charset="UTF-8"'
  readonly #users: ReadonlyMap<string, string>
  readonly #decoy: string
  readonly #checker: BcryptChecker
  readonly #key = randomBytes(32)
  readonly #verified = new Set<string>()
  readonly #inFlight = new Map<string, Promise<boolean>>()
  readonly #cacheSize: number
  readonly #maxPending: number

  constructor(users: ReadonlyMap<string, string>, checker: BcryptChecker, options: BasicAuthOptions = {}) {
    const decoy = users.values().next().value
    if (decoy === undefined) throw new Error('basic auth needs at least one user')
    this.#users = users
    this.#decoy = decoy
    this.#checker = checker
    this.#cacheSize = options.cacheSize ?? 256
    this.#maxPending = options.maxPending ?? 32
  }

  async check(header: string | undefined): Promise<AccessVerdict> {
    const credentials = basicCredentials(header)
    if (!credentials) return 'refused'
    const { user, password } = credentials
    const key = createHmac('sha256', this.#key)
      .update(JSON.stringify([user, password]))
      .digest('base64')
    if (this.#verified.has(key)) {
      // Used again: moved to the end, so the least recently used is the first forgotten.
      this.#verified.delete(key)
      this.#verified.add(key)
      return 'allowed'
    }
    // The same new credentials arriving together (a first scrape and the page) share one check.
    let verification = this.#inFlight.get(key)
    if (!verification) {
      if (this.#inFlight.size >= this.#maxPending) return 'busy'
      verification = this.#verify(key, user, password)
      this.#inFlight.set(key, verification)
    }
    return (await verification) ? 'allowed' : 'refused'
  }

  async #verify(key: string, user: string, password: string): Promise<boolean> {
    try {
      const hash = this.#users.get(user)
      const matches = await this.#checker.compare(password, hash ?? this.#decoy)
      const allowed = matches && hash !== undefined
      if (allowed) this.#remember(key)
      return allowed
    } finally {
      this.#inFlight.delete(key)
    }
  }

  #remember(key: string): void {
    this.#verified.add(key)
    if (this.#verified.size <= this.#cacheSize) return
    const oldest = this.#verified.values().next().value
    if (oldest !== undefined) this.#verified.delete(oldest)
  }
}
