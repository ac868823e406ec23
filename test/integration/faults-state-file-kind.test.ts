import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import { mountHungFilesystem } from '../support/hung-mount.js'
import { freePort, refusalProblems, startExporterProcess } from '../support/process.js'
import { assertCleanExit, startServingProcess } from '../support/serving-process.js'
import { storeFolder } from '../support/state-file.js'

/**
 * STATE_FILE naming what is not a regular file (a character device, a FIFO), or sitting on a
 * mount that never answers: the real process, as an operator would start it.
 */

const run = promisify(execFile)

/** Starts serve with `env`; its exit code and stderr, or 'still running' after `boundMs`. */
async function startUntilExit(
  t: { after: (fn: () => void) => void },
  env: Record<string, string>,
  cwd: string,
) {
  const port = await freePort()
  const child = startExporterProcess({ HOST: '127.0.0.1', PORT: String(port), ...env }, cwd)
  t.after(() => child.kill('SIGKILL'))
  const code = await Promise.race([child.exited, sleep(20_000).then(() => 'still running')])
  return { code, stderr: child.stderr(), stdout: child.stdout() }
}

test('STATE_FILE a character device or a FIFO: refused at start with one line, the device left as it was', async (t) => {
  const { root, data } = await storeFolder(t, 'objstore-state-kind-')
  // /dev/null's numbers (1, 3), made here: the test never touches the host's devices.
  const device = join(root, 'null')
  const fifo = join(root, 'fifo')
  await run('mknod', [device, 'c', '1', '3'])
  await run('mkfifo', [fifo])
  for (const [path, kind] of [
    [device, 'a character device'],
    [fifo, 'a FIFO (named pipe)'],
  ] as const) {
    const ended = await startUntilExit(
      t,
      { DATA_DIR: data, STATE_FILE: path, SCAN_INTERVAL_SECONDS: '1' },
      root,
    )
    assert.equal(ended.code, 2, `${path}: ${ended.stderr}`)
    assert.deepEqual(refusalProblems(ended.stderr), [
      `STATE_FILE: ${path} is ${kind}, not a regular file; expected a regular file, a link to one, or a path where none exists yet (empty: no state file)`,
    ])
  }
  assert.ok((await stat(device)).isCharacterDevice(), 'the device is still a device')
  assert.ok((await stat(fifo)).isFIFO(), 'the FIFO is still a FIFO')
})

test('STATE_FILE on a mount that never answers: /healthz at once, /readyz once the load is given up, scans go on', async (t) => {
  const { root, data } = await storeFolder(t, 'objstore-state-hung-')
  // Outside the scratch folder, whose removal runs first and would wait on the hung mount.
  const share = await mkdtemp(join(tmpdir(), 'objstore-state-share-'))
  const hung = await mountHungFilesystem(share)
  t.after(async () => {
    if (typeof hung !== 'string') await hung.release()
    await rm(share, { recursive: true, force: true })
  })
  if (typeof hung === 'string') {
    if (process.env.CI && !hung.startsWith('no /dev/fuse'))
      throw new Error(`CI must be able to mount a FUSE filesystem: ${hung}`)
    return t.skip(hung)
  }
  const exporter = await startServingProcess(
    t,
    {
      DATA_DIR: data,
      STATE_FILE: join(share, 'usage.json'),
      STATE_FILE_TIMEOUT_SECONDS: '2',
      SCAN_INTERVAL_SECONDS: '1',
      LOG_LEVEL: 'debug',
    },
    root,
  )
  // Listening (startServingProcess waited for /healthz) while the state file has not answered.
  assert.equal((await fetch(`${exporter.baseUrl}/readyz`)).status, 503, 'not ready before any figures')
  const [given] = await exporter.waitForLogs('the load given up', (line) =>
    String(line.msg).startsWith('state file not answering'),
  )
  assert.equal(given?.stateFile, join(share, 'usage.json'))
  // The first scan's write hangs too: left pending, later rounds go on unwritten.
  await exporter.waitForLogs('three scans', (line) => line.msg === 'usage scan finished', 3)
  assert.equal((await fetch(`${exporter.baseUrl}/readyz`)).status, 200)
  assert.equal(
    exporter.logs().filter((line) => String(line.msg).startsWith('state file write still pending')).length,
    1,
  )
  // The mount back (ENOTCONN to every waiting call): the process ends cleanly.
  await hung.release()
  await assertCleanExit(exporter)
})
