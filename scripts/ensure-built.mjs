/**
 * `npm start`'s prestart: makes sure dist/ holds a build of src/ before `node dist/main.js` runs.
 * Plain JavaScript with no dependency, so it runs where only production dependencies are installed
 * (`npm ci --omit=dev`): there dist/ comes from the build stage and is used as it is. In a clone
 * with dev dependencies (esbuild, which scripts/build.mjs bundles with), a missing build, or one
 * older than a file of src/, the build scripts or the native fs walk's C, is built first, so
 * `npm ci && npm start` works on a fresh clone and never runs stale code.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const entry = join(root, 'dist', 'main.js')
const builder = join(root, 'scripts', 'build.mjs')
const esbuild = join(root, 'node_modules', 'esbuild')

/** The newest modification time under `folder` (0 when it does not exist); bounded by the tree. */
function newestMtime(folder) {
  if (!existsSync(folder)) return 0
  let newest = 0
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue
    newest = Math.max(newest, statSync(join(entry.parentPath ?? entry.path, entry.name)).mtimeMs)
  }
  return newest
}

const built = existsSync(entry) ? statSync(entry).mtimeMs : 0
const sources = Math.max(
  newestMtime(join(root, 'src')),
  ...[
    'tsconfig.json',
    join('scripts', 'build.mjs'),
    join('scripts', 'build-native.mjs'),
    join('native', 'fswalk.c'),
  ].map((name) => (existsSync(join(root, name)) ? statSync(join(root, name)).mtimeMs : 0)),
)
const stale = built === 0 || sources > built

if (stale && existsSync(builder) && existsSync(esbuild)) {
  process.stderr.write(
    `objstore-exporter: ${built === 0 ? 'no build yet' : 'src/ changed since the last build'}; building dist/ (npm run build)\n`,
  )
  const result = spawnSync(process.execPath, [builder], {
    stdio: 'inherit',
    cwd: root,
  })
  process.exit(result.status ?? 1)
} else if (built === 0) {
  process.stderr.write(
    'objstore-exporter: dist/main.js is missing and esbuild is not installed: build where dev dependencies are (npm ci && npm run build), then copy dist/ beside package.json (see docs/cli.md)\n',
  )
  process.exit(1)
} else if (stale) {
  process.stderr.write(
    'objstore-exporter: warning: dist/ is older than src/ and esbuild is not installed to rebuild it\n',
  )
}
