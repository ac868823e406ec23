/*
 * Every file or folder ARCHITECTURE.md names exists (issue 24): a move that forgets the page fails
 * the test that runs this (test/unit/architecture-paths.test.ts). A name the page gives in full
 * (`src/snapshot/snapshot.ts`, `test/fixtures/`) must exist there; one it gives inside a paragraph
 * about its folder (`walk-pool.ts`, `s3/client.ts`, `../retry.ts`) must end the path of some file
 * or folder of the tree, so a renamed file is caught wherever the page names it.
 */
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

/** The folders of the repository a page names paths in. */
const TOP_FOLDERS = ['src', 'test', 'bench', 'scripts', 'docs', 'deploy', '.ci']
/** What a backticked name must look like to be taken for a path. */
const PATH_LIKE = /^[\w.@*/-]+$/
const FILE_LIKE = /\.(ts|mts|cjs|mjs|js|json|md|yml|yaml|node|txt|prom)$/

/** The names in backticks that look like a file (with an extension) or a folder (ending in `/`). */
export function namedPaths(page: string): string[] {
  const names = [...page.matchAll(/`([^`\n]+)`/g)].map((match) => match[1] as string)
  return [
    ...new Set(
      names.filter(
        (name) => PATH_LIKE.test(name) && (FILE_LIKE.test(name) || (name.endsWith('/') && name.length > 1)),
      ),
    ),
  ]
}

/** Every file and folder under `root`'s top folders and at its top, as paths from `root` (folders end in `/`). */
export function treePaths(root: string): string[] {
  const paths: string[] = readdirSync(root).map((name) =>
    statSync(join(root, name)).isDirectory() ? `${name}/` : name,
  )
  const walk = (folder: string): void => {
    for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.git')) continue
      const path = `${folder}/${entry.name}`
      if (entry.isDirectory()) {
        paths.push(`${path}/`)
        walk(path)
      } else paths.push(path)
    }
  }
  for (const folder of TOP_FOLDERS) if (paths.includes(`${folder}/`)) walk(folder)
  return paths
}

/** A name with `*` as a pattern of one path segment's characters. */
function matcher(name: string): (path: string) => boolean {
  const pattern = name.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')
  const full = new RegExp(`^${pattern}$`)
  const tail = new RegExp(`(^|/)${pattern}$`)
  const inFull = TOP_FOLDERS.some((folder) => name.startsWith(`${folder}/`)) || !name.includes('/')
  return name.includes('/') && inFull ? (path) => full.test(path) : (path) => tail.test(path)
}

/** The names `page` gives that no path of `tree` answers to. */
export function missingPaths(page: string, tree: readonly string[]): string[] {
  return namedPaths(page).filter((named) => {
    const name = named.replace(/^(\.\.\/)+/, '')
    const matches = matcher(name)
    return !tree.some(matches)
  })
}
