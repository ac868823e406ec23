/**
 * Sections a script writes into a hand-written page sit between two comment markers: `npm run
 * docs` writes the reference tables of docs/, `npm run bench -- --docs` the tables of
 * docs/performance.md. `page` names the file in the error when its markers are missing.
 */
export function replaceBetween(
  page: string,
  text: string,
  [start, end]: readonly [string, string],
  body: string,
): string {
  const from = text.indexOf(start)
  const to = text.indexOf(end)
  if (from < 0 || to < from) throw new Error(`${page} lacks the markers ${start} ... ${end}`)
  return `${text.slice(0, from + start.length)}\n${body}\n${text.slice(to)}`
}
