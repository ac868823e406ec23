import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import bcrypt from 'bcryptjs'
import { sampleValue } from '../support/exposition.js'
import { REPO_ROOT } from '../support/promtool.js'
import { scratchFolder } from '../support/scratch.js'
import { assertCleanExit, startServingProcess } from '../support/serving-process.js'
import { waitFor } from '../support/wait-for.js'

/**
 * `npm run build` (scripts/build.mjs) as `npm start`, the bin and the image run it: src/ bundled
 * into a few files of dist/, the worker threads and the health check their own entries, the parts
 * start does not need (the AWS SDK, @fastify/swagger) loaded when used.
 */

function run(file: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(file, args, { env, timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    )
  })
}

/** The files main.js loads before it runs: its static imports, and theirs (bounded by dist/). */
function staticClosure(dist: string): Set<string> {
  const seen = new Set<string>()
  const queue = ['main.js']
  while (queue.length > 0 && seen.size < 1_000) {
    const file = queue.pop() as string
    if (seen.has(file)) continue
    seen.add(file)
    const text = readFileSync(join(dist, file), 'utf8')
    // Static imports and re-exports (`from"./chunk.js"`, `import"./chunk.js"`), not `import("./...")`.
    for (const [, imported] of text.matchAll(/\b(?:from|import)\s*"\.\/([^"]+)"/g))
      queue.push(imported as string)
  }
  return seen
}

describe('the built entry (npm run build)', { timeout: 10 * 60_000 }, () => {
  let folder: string
  let dist: string
  before(async () => {
    // Beside package.json (read for the version) and node_modules (pino and undici stay there).
    folder = await mkdtemp(join(tmpdir(), 'objstore-built-entry-'))
    dist = join(folder, 'dist')
    await copyFile(join(REPO_ROOT, 'package.json'), join(folder, 'package.json'))
    await symlink(join(REPO_ROOT, 'node_modules'), join(folder, 'node_modules'))
    const built = await run(process.execPath, [join(REPO_ROOT, 'scripts/build.mjs'), '--outdir', dist])
    assert.equal(built.code, 0, built.stderr)
  })
  after(() => rm(folder, { recursive: true, force: true }))

  it('is a bundle: a few files, no tree of modules, source maps naming src/', () => {
    const files = readdirSync(dist)
    for (const entry of [
      'main.js',
      'healthcheck.js',
      'walk-worker.js',
      'usage-render-worker.js',
      'bcrypt-worker.js',
    ])
      assert.ok(files.includes(entry), `${entry} built`)
    // The native fs walk sits beside them where a C compiler built it (scripts/build-native.mjs).
    assert.deepEqual(
      files.filter((file) => !file.endsWith('.js') && !file.endsWith('.js.map') && file !== 'fswalk.node'),
      [],
      'only files beside main.js (a worker is started as its sibling)',
    )
    const map = JSON.parse(readFileSync(join(dist, 'main.js.map'), 'utf8')) as { sources: string[] }
    assert.ok(
      map.sources.some((source) => source.endsWith('src/cli/serve.ts')),
      'main.js.map maps back to src/',
    )
  })

  it('loads the AWS SDK and the OpenAPI generator only when used', () => {
    const eager = staticClosure(dist)
    assert.ok(eager.size > 1, `main.js imports its chunks: ${[...eager].join(', ')}`)
    // A string of each package's code: the S3 client's command, @fastify/swagger's own error.
    for (const marker of ['ListObjectsV2Command', '.swagger() must be called after .ready()']) {
      const holding = readdirSync(dist).filter(
        (file) => file.endsWith('.js') && readFileSync(join(dist, file), 'utf8').includes(marker),
      )
      assert.ok(holding.length > 0, `${marker}: in a chunk`)
      for (const file of holding) assert.ok(!eager.has(file), `${marker}: ${file} is loaded at start`)
    }
  })

  it('serves /readyz, /metrics with a scan walked on its thread, the API and its OpenAPI document', async (t) => {
    const data = await scratchFolder(t)
    await mkdir(join(data, 'photos', 'a'), { recursive: true })
    await writeFile(join(data, 'photos', 'a', 'one.jpg'), Buffer.alloc(1234))
    await writeFile(join(data, 'photos', 'two.jpg'), Buffer.alloc(66))
    const serving = await startServingProcess(t, { DATA_DIR: data, LOG_MODE: 'json' }, folder, {
      entry: join(dist, 'main.js'),
    })
    await waitFor('ready', async () => (await fetch(`${serving.baseUrl}/readyz`)).status === 200, {
      timeoutMs: 60_000,
      intervalMs: 50,
    })
    // The walk (walk-worker.js) and the render (usage-render-worker.js) ran from the bundle.
    const scrape = await serving.scrape({ 'Accept-Encoding': 'gzip' })
    assert.equal(sampleValue(scrape, 'objstore_bucket_usage_total_bytes', { bucket: 'photos' }), 1300)
    assert.equal(sampleValue(scrape, 'objstore_bucket_usage_objects', { bucket: 'photos' }), 2)
    // Which walk ran is logged once, at the first scan. CI has a compiler (.ci/run installs one), so
    // there the bundle's walk must be the native one (native/fswalk.c beside it as fswalk.node).
    const walkers = serving.logs().filter((line) => String(line.msg).startsWith('fs walk: '))
    assert.equal(walkers.length, 1, JSON.stringify(walkers))
    if (process.env.CI || existsSync(join(dist, 'fswalk.node')))
      assert.equal(walkers[0]?.msg, 'fs walk: native', 'the built exporter walks with the native walker')
    else t.diagnostic(`no C compiler here: ${String(walkers[0]?.msg)}`)
    const openapi = (await (await fetch(`${serving.baseUrl}/api/openapi.json`)).json()) as {
      openapi: string
      paths: Record<string, unknown>
    }
    assert.equal(openapi.openapi, '3.1.0')
    assert.ok('/api/v1/buckets' in openapi.paths, Object.keys(openapi.paths).join(', '))
    const buckets = (await (await fetch(`${serving.baseUrl}/api/v1/buckets`)).json()) as {
      buckets: Array<{ name: string }>
    }
    assert.deepEqual(
      buckets.buckets.map((bucket) => bucket.name),
      ['photos'],
    )
    // A bad query is still refused by the route's schema (validators compiled in the bundle).
    assert.equal((await fetch(`${serving.baseUrl}/api/v1/buckets?limt=3`)).status, 400)
    const health = await run(process.execPath, [join(dist, 'healthcheck.js')], {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: String(serving.port),
    })
    assert.equal(health.code, 0, health.stderr)
    await assertCleanExit(serving)
    assert.ok(existsSync(join(dist, 'main.js')))
  })

  it('checks basic auth passwords on its bcrypt thread (bcrypt-worker.js)', async (t) => {
    const data = await scratchFolder(t)
    const webConfig = join(data, 'web.yml')
    await writeFile(webConfig, `basic_auth_users:\n  prometheus: ${await bcrypt.hash('built-pw', 4)}\n`)
    const serving = await startServingProcess(t, { DATA_DIR: data, WEB_CONFIG_FILE: webConfig }, folder, {
      entry: join(dist, 'main.js'),
    })
    const authorization = `Basic ${Buffer.from('prometheus:built-pw').toString('base64')}`
    assert.equal((await fetch(`${serving.baseUrl}/metrics`)).status, 401)
    assert.equal((await fetch(`${serving.baseUrl}/metrics`, { headers: { authorization } })).status, 200)
    await assertCleanExit(serving)
  })
})
