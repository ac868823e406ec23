/**
 * URLs from the configuration may carry credentials (`https://user:secret@host/…`, or a token in
 * the query string). Wherever a URL is shown (logs, error lines, pages) it goes through
 * `withoutCredentials`, which keeps what an operator needs to recognise it (scheme, host, path)
 * and drops the user info and every query value.
 */
export function withoutCredentials(text: string): string {
  let url: URL | undefined
  try {
    url = new URL(text)
  } catch {
    url = undefined
  }
  if (!url?.host) {
    // Not a URL with a host (a typo, or `user:pw@host` read as a scheme): cut anything that looks
    // like user info or a query.
    return text.replace(/[^\s/]*@/g, '[redacted]@').replace(/\?.*$/s, '?[redacted]')
  }
  const hadUserInfo = url.username !== '' || url.password !== ''
  url.username = ''
  url.password = ''
  for (const key of [...new Set(url.searchParams.keys())]) url.searchParams.set(key, '[redacted]')
  url.hash = ''
  const shown = url.toString().replace(/%5Bredacted%5D/g, '[redacted]')
  return hadUserInfo ? shown.replace('://', '://[redacted]@') : shown
}

/** The user info of a URL, decoded; empty strings when there is none or the URL does not parse. */
export function credentialsOf(text: string): { readonly username: string; readonly password: string } {
  try {
    const url = new URL(text)
    return { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) }
  } catch {
    return { username: '', password: '' }
  }
}
