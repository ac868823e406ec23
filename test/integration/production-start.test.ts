import assert from 'node:assert/strict'
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { copyFile, mkdir, mkdtemp, readdir, readlink, rm } from 'node:fs/promises'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { waitForHttpOk } from '../support/http-ready.js'
import { freePort } from '../support/process.js'
import { REPO_ROOT } from '../support/promtool.js'
import { waitFor } from '../support/wait-for.js'

/**
 * The production path as an operator takes it: dist/ built where dev dependencies are, copied
 * beside package.json into a folder with production dependencies only (`npm ci --omit=dev`),
 * then `npm start`. SIGTERM to npm must stop the exporter, not orphan it still answering.
 */

function run(file: string, args: readonly string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd, timeout: 8 * 60_000, maxBuffer: 16 << 20 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${file} ${args.join(' ')}: ${error.message}\n${stderr}`)) : resolve(stdout),
    )
  })
}

/** Pids of the processes whose working folder is `folder` (what this test started there). */
async function processesIn(folder: string): Promise<number[]> {
  const pids: number[] = []
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const cwd = await readlink(`/proc/${name}/cwd`).catch(() => '')
    if (cwd === folder) pids.push(Number(name))
  }
  return pids
}

function portRefuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(false)
    })
    socket.once('error', () => resolve(true))
  })
}

describe('production start: dist/ with npm ci --omit=dev', { timeout: 15 * 60_000 }, () => {
  let folder: string
  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'objstore-production-'))
    await run(
      process.execPath,
      [join(REPO_ROOT, 'scripts', 'build.mjs'), '--outdir', join(folder, 'dist')],
      REPO_ROOT,
    )
    for (const file of ['package.json', 'package-lock.json'])
      await copyFile(join(REPO_ROOT, file), join(folder, file))
    await mkdir(join(folder, 'scripts'))
    await copyFile(
      join(REPO_ROOT, 'scripts', 'ensure-built.mjs'),
      join(folder, 'scripts', 'ensure-built.mjs'),
    )
    await run('npm', ['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'], folder)
  })
  after(async () => {
    // Anything left running there (an orphaned exporter is the failure this test looks for).
    for (const pid of await processesIn(folder)) process.kill(pid, 'SIGKILL')
    await rm(folder, { recursive: true, force: true })
  })

  it('installs no dev dependency, and the bin runs without them', async () => {
    for (const dev of ['typescript', 'tsx', '@biomejs/biome', 's3rver'])
      assert.ok(!existsSync(join(folder, 'node_modules', dev)), `${dev} installed by --omit=dev`)
    const version = await run(process.execPath, [join(folder, 'dist', 'main.js'), '--version'], folder)
    assert.match(version, /^\d+\.\d+\.\d+/)
    const checked = await run(process.execPath, [join(folder, 'dist', 'main.js'), 'check-config'], folder)
    assert.match(checked, /configuration valid/)
  })

  it('npm start serves, and SIGTERM to npm stops the exporter', async () => {
    const port = await freePort()
    const npm: ChildProcess = spawn('npm', ['start'], {
      cwd: folder,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? folder,
        HOST: '127.0.0.1',
        PORT: String(port),
        DATA_DIR: join(folder, 'data'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    npm.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8')
    })
    npm.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8')
    })
    const exited = once(npm, 'exit')
    await waitForHttpOk(`http://127.0.0.1:${port}/healthz`, () => npm.exitCode === null, 60_000)
    // A scrape may be shed (503) while the machine is busy: asked again until served, bounded.
    let scrape = ''
    await waitFor(
      'a served scrape',
      async () => {
        const response = await fetch(`http://127.0.0.1:${port}/metrics`)
        scrape = await response.text()
        return response.status === 200
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    )
    assert.match(scrape, /^objstore_exporter_build_info\{/m)
    npm.kill('SIGTERM')
    await exited
    // npm has exited; the exporter must be gone with it (it shuts down on the forwarded SIGTERM).
    await waitFor('the port to close', () => portRefuses(port), { timeoutMs: 30_000, intervalMs: 100 })
    await waitFor('no process left in the folder', async () => (await processesIn(folder)).length === 0, {
      timeoutMs: 30_000,
      intervalMs: 100,
    })
    assert.match(output, /"msg":"shutting down"/, 'the exporter shut down gracefully')
  })
})
