import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

/**
 * Relative links of the project's Markdown pages, checked as GitHub renders them: the target file
 * or folder exists, and an `#anchor` is a heading of the target page (GitHub's slug rules,
 * duplicates numbered) or an explicit `<a id>`/`<a name>`. Links inside code (fenced blocks,
 * `code spans`) are text, not links. Absolute URLs (`https:`, `mailto:`) are not checked.
 */

export interface MarkdownLink {
  readonly file: string
  readonly line: number
  readonly target: string
}

/** Characters GitHub drops from a heading's text to make its anchor (github-slugger's categories). */
const DROPPED =
  /[\p{Other_Number}\p{Open_Punctuation}\p{Close_Punctuation}\p{Initial_Punctuation}\p{Final_Punctuation}\p{Other_Punctuation}\p{Dash_Punctuation}\p{Symbol}\p{Control}\p{Private_Use}\p{Format}\p{Unassigned}\p{Separator}]/gu

/** GitHub's anchor for a heading's rendered text: lower case, dropped characters, a space a hyphen. */
export function githubSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(DROPPED, (char) => (char === ' ' || char === '-' || /\p{Alphabetic}/u.test(char) ? char : ''))
    .replace(/ /g, '-')
}

/** The rendered text of a heading's Markdown: code spans as written, links by their text, tags removed. */
function headingText(markdown: string): string {
  return markdown
    .replace(/\s+#+\s*$/, '')
    .split(/(`+[^`]*?`+)/)
    .map((part, index) =>
      index % 2 === 1 ? part : part.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, ''),
    )
    .join('')
    .trim()
}

/** Lines outside fenced code blocks, with their 1-based numbers; code spans blanked out. */
function proseLines(markdown: string): { text: string; number: number }[] {
  const lines: { text: string; number: number }[] = []
  let fence: string | undefined
  markdown.split('\n').forEach((text, index) => {
    const opening = /^ {0,3}(`{3,}|~{3,})/.exec(text)
    if (fence !== undefined) {
      if (opening && opening[1]?.[0] === fence[0] && (opening[1]?.length ?? 0) >= fence.length)
        fence = undefined
      return
    }
    if (opening) {
      fence = opening[1]
      return
    }
    lines.push({ text, number: index + 1 })
  })
  return lines
}

function withoutCodeSpans(text: string): string {
  return text.replace(/(`+)[^`]*?\1/g, (span) => ' '.repeat(span.length))
}

/** Every anchor a page offers: its headings' slugs (GitHub numbers repeats -1, -2...) and explicit ids. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const slugs = new Map<string, number>()
  for (const { text } of proseLines(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*)$/.exec(text)
    if (heading) {
      const base = githubSlug(headingText(heading[1] ?? ''))
      let slug = base
      while (slugs.has(slug)) {
        const count = (slugs.get(base) ?? 0) + 1
        slugs.set(base, count)
        slug = `${base}-${count}`
      }
      slugs.set(slug, 0)
      anchors.add(slug)
    }
    for (const match of text.matchAll(/<a\s+(?:[^>]*\s)?(?:id|name)="([^"]+)"/g)) anchors.add(match[1] ?? '')
  }
  return anchors
}

/** The relative links of a page (inline, images, and reference definitions), outside code. */
export function linksOf(file: string, markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = []
  for (const { text, number } of proseLines(markdown)) {
    const prose = withoutCodeSpans(text)
    const targets = [
      ...[...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]),
      ...[...prose.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/g)].map((match) => match[1]),
    ]
    for (const target of targets) {
      if (target === undefined || /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue
      links.push({ file, line: number, target })
    }
  }
  return links
}

/** What is wrong with each relative link of `files` (paths relative to `root`); empty when all resolve. */
export function brokenLinks(root: string, files: readonly string[]): string[] {
  const problems: string[] = []
  const anchorCache = new Map<string, Set<string>>()
  const anchors = (path: string) => {
    let found = anchorCache.get(path)
    if (found === undefined) {
      found = anchorsOf(readFileSync(path, 'utf8'))
      anchorCache.set(path, found)
    }
    return found
  }
  for (const file of files) {
    const source = join(root, file)
    for (const link of linksOf(file, readFileSync(source, 'utf8'))) {
      const where = `${link.file}:${link.line}: ${link.target}`
      const hash = link.target.indexOf('#')
      const pathPart = decodeURIComponent(hash < 0 ? link.target : link.target.slice(0, hash))
      const anchor = hash < 0 ? undefined : decodeURIComponent(link.target.slice(hash + 1))
      const target = pathPart === '' ? source : resolve(dirname(source), pathPart)
      if (relative(root, target).startsWith('..')) {
        problems.push(`${where}: leaves the repository`)
        continue
      }
      if (!existsSync(target)) {
        problems.push(`${where}: no such file`)
        continue
      }
      if (anchor === undefined) continue
      if (statSync(target).isDirectory() || !target.endsWith('.md')) {
        problems.push(`${where}: an anchor on something that is not a Markdown page`)
      } else if (!anchors(target).has(anchor)) {
        problems.push(`${where}: no heading or anchor "${anchor}" in ${relative(root, target)}`)
      }
    }
  }
  return problems
}
