/**
 * `npm run check:length` (in .ci/run): no .ts file under src/ is longer than MAX_LINES unless its
 * opening comment says why, in a line of its own:
 *
 *   // long: catalogue: one declaration per family, split by collector in issue 12
 *
 * or, inside the opening block comment, ` * long: <reason>`. The opening comment is everything
 * before the first line of code. A reason of a few words is required; a long file without one
 * fails the check, naming the file and its length. A mark on a file no longer long is reported
 * (remove it), without failing.
 */
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

export const MAX_LINES = 300
/** `// long: reason` or ` * long: reason`, the reason at least this long. */
const MIN_REASON = 10
const MARK = /^\s*(?:\/\/|\/?\*+)\s*long:\s*(.*?)\s*(?:\*\/)?\s*$/

export interface FileLength {
  readonly path: string
  readonly lines: number
  /** The reason its opening comment gives for being long, if any. */
  readonly reason: string | undefined
}

/** Lines as `wc -l` counts them, plus a last line without a newline. */
export function countLines(text: string): number {
  if (text.length === 0) return 0
  const newlines = text.split('\n').length - 1
  return text.endsWith('\n') ? newlines : newlines + 1
}

/** The `long:` reason in the comment before the first line of code, or undefined. */
export function longReason(text: string): string | undefined {
  let inBlock = false
  for (const line of text.split('\n')) {
    const trimmed = line.trim()
    const isComment =
      inBlock ||
      trimmed === '' ||
      trimmed.startsWith('//') ||
      trimmed.startsWith('/*') ||
      trimmed.startsWith('#!')
    if (!isComment) return undefined
    if (trimmed.startsWith('/*')) inBlock = true
    const mark = MARK.exec(line)
    if (mark && (mark[1] ?? '').length >= MIN_REASON) return mark[1]
    if (inBlock && trimmed.includes('*/')) inBlock = false
  }
  return undefined
}

async function* typescriptFiles(folder: string): AsyncGenerator<string> {
  const entries = await readdir(folder, { withFileTypes: true })
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  for (const entry of entries) {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) yield* typescriptFiles(path)
    else if (entry.isFile() && entry.name.endsWith('.ts')) yield path
  }
}

/** Every .ts file under `folder`, with its length and stated reason. */
export async function measureFiles(folder: string): Promise<FileLength[]> {
  const files: FileLength[] = []
  for await (const path of typescriptFiles(folder)) {
    const text = await readFile(path, 'utf8')
    files.push({ path, lines: countLines(text), reason: longReason(text) })
  }
  return files
}

async function main(): Promise<void> {
  const root = fileURLToPath(new URL('..', import.meta.url))
  const files = await measureFiles(join(root, 'src'))
  const name = (file: FileLength) => relative(root, file.path)
  const unexplained = files.filter((file) => file.lines > MAX_LINES && !file.reason)
  const explained = files.filter((file) => file.lines > MAX_LINES && file.reason)
  const stale = files.filter((file) => file.lines <= MAX_LINES && file.reason)
  for (const file of explained) {
    process.stdout.write(`long, with reason: ${name(file)} (${file.lines} lines): ${file.reason}\n`)
  }
  for (const file of stale) {
    process.stdout.write(`note: ${name(file)} has ${file.lines} lines now; its "long:" mark can go\n`)
  }
  for (const file of unexplained) {
    process.stderr.write(
      `${name(file)}: ${file.lines} lines, over ${MAX_LINES}; split it, or give the reason in its opening comment ("// long: <reason>")\n`,
    )
  }
  if (unexplained.length > 0) process.exitCode = 1
  else process.stdout.write(`${files.length} files in src, none over ${MAX_LINES} lines without a reason\n`)
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main()
