/**
 * `npm run build`: src/ bundled by esbuild into dist/, the folder `npm start`, the bin and the
 * image run. Measured on the built exporter (issue 15, docs/performance.md): the per-file tsc
 * output loaded ~870 modules at start (TypeBox alone 249), and resolving and reading them cost
 * about half of the start's CPU; one bundle loads a handful of files.
 *
 * - Entry points: main.js (the command line), healthcheck.js (the image's HEALTHCHECK) and the
 *   worker threads (walk, usage-render and bcrypt workers). Every file lands in dist/
 *   itself, chunks included, because a worker is started as a sibling of the module starting it
 *   (src/worker-threads.ts) and version.ts reads ../package.json.
 * - Code splitting: what start does not need stays in chunks loaded by `await import()` only when
 *   used (the s3 and rgw sources with the AWS SDK, the fs walk's pool).
 * - pino and its transport machinery (thread-stream, pino-pretty) stay in node_modules, as their
 *   documentation asks of bundlers: a transport runs files by path in a worker thread. undici is
 *   loaded with createRequire at run time and so stays there too.
 * - Packages written in CommonJS call `require()`: each file gets one made by createRequire.
 * - Whitespace and syntax minified, identifiers kept. Source maps beside each file (`.js.map`); `node --enable-source-maps dist/main.js` makes stack
 *   traces name src/ files (see docs/deploy.md).
 *
 * - The native fs walk (native/fswalk.c) is compiled by scripts/build-native.mjs into the folder
 *   as fswalk.node (and into native/build/, for src/ through tsx); without a C compiler one line says so
 *   and the JavaScript walk is used.
 *
 * Type checking is `npm run typecheck` (tsc); this only emits. Usage:
 *   node scripts/build.mjs [--outdir <folder>] [--keep]
 * (default: dist beside this repository's src; --keep: what the folder holds is not removed first).
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { build } from 'esbuild'
import { buildNative, SOURCE_TREE_NATIVE } from './build-native.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))

/** The entry points, named as dist/ names them. */
export const ENTRY_POINTS = {
  main: 'src/main.ts',
  healthcheck: 'src/healthcheck.ts',
  'walk-worker': 'src/sources/fs/walk-worker.ts',
  'usage-render-worker': 'src/exposition/usage-render-worker.ts',
  'bcrypt-worker': 'src/security/bcrypt-worker.ts',
}

/** Loaded from node_modules at run time, never bundled (see above). */
export const EXTERNAL = ['pino', 'pino-pretty', 'thread-stream', 'undici']

/** Bundles src/ into `outdir`, emptied first unless `keep` (the benches add it to tsc's output). */
export async function buildDist(outdir, { keep = false } = {}) {
  if (!keep) rmSync(outdir, { recursive: true, force: true })
  await build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(
      Object.entries(ENTRY_POINTS).map(([name, file]) => [name, join(root, file)]),
    ),
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    chunkNames: 'chunk-[hash]',
    external: EXTERNAL,
    sourcemap: 'linked',
    legalComments: 'none',
    // Smaller source to read, pre-parse and keep in the heap (~1 MB of RSS, measured); names are
    // kept, so a stack trace without source maps still names its functions.
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
    banner: {
      js: "import { createRequire as __objstoreCreateRequire } from 'node:module';\nconst require = __objstoreCreateRequire(import.meta.url);",
    },
  })
  buildNative([outdir, SOURCE_TREE_NATIVE])
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({ options: { outdir: { type: 'string' }, keep: { type: 'boolean' } } })
  await buildDist(values.outdir ?? join(root, 'dist'), { keep: values.keep ?? false })
}
