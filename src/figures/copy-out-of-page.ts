/**
 * `text` as a string of its own. V8 makes a slice of 13 characters or more of a long string a
 * view into it, so a key sliced out of a listing page's text and kept somewhere lasting (a
 * prefix sketch's label, a storage class in a bucket's record) keeps the whole page alive:
 * 200 kept prefixes held 44.5 MB of 1,000-key pages. Joined to one character and sliced again,
 * the text is copied into a new string of its length (lossless, unlike a round trip through
 * UTF-8, which would replace a lone surrogate).
 */
export function copyOutOfPage(text: string): string {
  return text.length < 13 ? text : ` ${text}`.slice(1)
}
