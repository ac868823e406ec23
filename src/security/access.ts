/** What a request's credentials come to. `busy`: too many new passwords are being checked. */
export type AccessVerdict = 'allowed' | 'refused' | 'busy'

/** How the server checks a request's `Authorization` header: a bearer token or basic auth. */
export interface RequestAuthenticator {
  readonly scheme: 'bearer' | 'basic'
  /** The `WWW-Authenticate` header of a refusal. */
  readonly challenge: string
  check(authorization: string | undefined): AccessVerdict | Promise<AccessVerdict>
}
