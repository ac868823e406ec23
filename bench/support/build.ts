import { spawnSync } from 'node:child_process'
import { copyFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * src/ built as `npm run build` builds it (scripts/build.mjs: main.js, healthcheck.js and the
 * worker threads bundled by esbuild), and beside it each module compiled on its own by tsc
 * (tsconfig.build.json) for the benches that import one (`load`), into a folder inside the
 * repository so the compiled files resolve their imports against our node_modules. Benches
 * measure this, not src/ through tsx: under tsx every worker thread starts its own TypeScript
 * loader and child processes pay for compiling on start, costs a deployment does not have.
 * `npm run bench` builds once and hands the folder to every bench (OBJSTORE_BENCH_BUILD); a bench
 * run on its own builds its own copy and removes it when done.
 */
export interface Build {
  /** The compiled src/ (main.js, exporter.js, scanning/, ...), as dist/ is. */
  readonly dir: string
  /** Imports a compiled module, e.g. `scanning/scanner.js`. */
  load<T>(relative: string): Promise<T>
  /** Removes the folder if this process built it. */
  remove(): void
}

const REPO = fileURLToPath(new URL('../..', import.meta.url))
export const BUILD_ENV = 'OBJSTORE_BENCH_BUILD'

/**
 * Compiles into `<folder>/dist` next to a copy of package.json, the layout of the repository
 * (the exporter reads its version from ../package.json).
 */
export function compile(folder: string): void {
  rmSync(folder, { recursive: true, force: true })
  const tsc = spawnSync(
    process.execPath,
    [
      join(REPO, 'node_modules/typescript/bin/tsc'),
      '-p',
      join(REPO, 'tsconfig.build.json'),
      '--outDir',
      join(folder, 'dist'),
    ],
    { encoding: 'utf8' },
  )
  if (tsc.status !== 0) throw new Error(`build failed: ${tsc.stdout}${tsc.stderr}`)
  // The bundle over tsc's output: main.js and healthcheck.js become the bundled entries; the
  // modules `load` imports stay tsc's, in their folders.
  const bundle = spawnSync(
    process.execPath,
    [join(REPO, 'scripts/build.mjs'), '--outdir', join(folder, 'dist'), '--keep'],
    { encoding: 'utf8' },
  )
  if (bundle.status !== 0) throw new Error(`bundle failed: ${bundle.stdout}${bundle.stderr}`)
  copyFileSync(join(REPO, 'package.json'), join(folder, 'package.json'))
}

export function buildFolder(name: string): string {
  return join(REPO, 'node_modules/.cache', name)
}

export function benchBuild(): Build {
  const given = process.env[BUILD_ENV]
  const folder = given ?? buildFolder(`objstore-bench-build-${process.pid}`)
  if (!given) compile(folder)
  const dir = join(folder, 'dist')
  return {
    dir,
    load: <T>(relative: string) => import(join(dir, relative)) as Promise<T>,
    remove() {
      if (!given) rmSync(folder, { recursive: true, force: true })
    },
  }
}
