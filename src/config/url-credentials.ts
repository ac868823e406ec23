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

/**
 * The user info of a URL, decoded; empty strings when there is none or the URL does not parse. A
 * `%` that starts no escape (`50%off`, which URL parsing accepts) is kept as written: thrown out
 * by decodeURIComponent, it left the password unknown, so never scrubbed from any output.
 */
export function credentialsOf(text: string): { readonly username: string; readonly password: string } {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return { username: '', password: '' }
  }
  return { username: decodedLeniently(url.username), password: decodedLeniently(url.password) }
}

/** The escapes of one UTF-8 character: one byte below 0x80, or a lead byte and its continuations. */
const ESCAPED_CHARACTER =
  /%[0-7][0-9A-Fa-f]|%[CDcd][0-9A-Fa-f]%[89ABab][0-9A-Fa-f]|%[Ee][0-9A-Fa-f](?:%[89ABab][0-9A-Fa-f]){2}|%[Ff][0-7](?:%[89ABab][0-9A-Fa-f]){3}/g

/** Each escaped character decoded; anything else (a lone `%`, a stray byte) kept as written. */
function decodedLeniently(text: string): string {
  return text.replace(ESCAPED_CHARACTER, (escaped) => {
    try {
      return decodeURIComponent(escaped)
    } catch {
      // An overlong form or a surrogate: not a character.
      return escaped
    }
  })
}
