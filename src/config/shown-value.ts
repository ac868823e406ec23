/** The most characters of a value an error line quotes. */
const SHOWN_VALUE_LENGTH = 100

/**
 * A value as an error line quotes it: JSON-quoted, whole when short; when longer than
 * SHOWN_VALUE_LENGTH, its start, an ellipsis and its full length, so a mistaken 100 kB value
 * (a file's content pasted into a variable) is named in one readable line, not echoed whole.
 */
export function shownValue(value: string): string {
  if (value.length <= SHOWN_VALUE_LENGTH) return JSON.stringify(value)
  return `${JSON.stringify(value.slice(0, SHOWN_VALUE_LENGTH))}... (${value.length} characters)`
}

/** shownValue without the quotes, for text a line shows bare (a list of names). */
export function shownText(text: string): string {
  if (text.length <= SHOWN_VALUE_LENGTH) return text
  return `${text.slice(0, SHOWN_VALUE_LENGTH)}... (${text.length} characters)`
}
