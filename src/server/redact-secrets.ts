/**
 * Secret values blanked out of a text a page or the API shows (a source's error message may quote
 * a key or a URL's credentials). Longest first, so a secret containing another is replaced whole.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let result = text
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret !== '') result = result.split(secret).join('[redacted]')
  }
  return result
}
