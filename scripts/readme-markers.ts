/**
 * README sections written by a script sit between two comment markers: `npm run docs` writes the
 * configuration and metrics tables, `npm run bench -- --readme` the Performance tables.
 */
export function replaceBetween(text: string, [start, end]: readonly [string, string], body: string): string {
  const from = text.indexOf(start)
  const to = text.indexOf(end)
  if (from < 0 || to < from) throw new Error(`README lacks the markers ${start} ... ${end}`)
  return `${text.slice(0, from + start.length)}\n${body}\n${text.slice(to)}`
}
