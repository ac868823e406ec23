import assert from 'node:assert/strict'
import { test } from 'node:test'
import { barLine, ProgressBar, wantsBar } from '../../src/cli/progress-bar.js'
import type { RoundProgressView } from '../../src/scanning/round-progress.js'

/** scan --once's bar: its line, cut to the terminal, and how it shares stderr with log lines. */

const VIEW: RoundProgressView = {
  source: 's3',
  startedAtMs: 0,
  phase: 'measuring',
  buckets: 4,
  bucketsDone: 1,
  failed: 0,
  objects: 2008,
  bytes: 3 * 1024 * 1024,
  requests: 7,
  elapsedSeconds: 12,
  objectsPerSecond: 167.3,
  inProgress: ['big-bucket', 'evil\u001b[2Jname'],
  inProgressCount: 3,
}

test('the line: a bar of buckets done, the figures, the buckets in progress, no control character', () => {
  assert.equal(
    barLine(VIEW, 200),
    'scan [#####...............] 1 of 4 buckets · 2,008 objects · 3.0 MiB · 167 objects/s · 7 requests · 12 s · big-bucket, evil?[2Jname, …',
  )
  const cut = barLine(VIEW, 60)
  assert.equal([...cut].length, 59, 'one column short of the width: a full line would wrap')
  assert.ok(cut.endsWith('…'))
  assert.match(barLine({ ...VIEW, buckets: undefined, bucketsDone: 0 }, 200), /^scan listing buckets · /)
})

test('only a terminal gets a bar, and TERM=dumb does not', () => {
  assert.equal(wantsBar({ write: () => true, isTTY: true }, {}), true)
  assert.equal(wantsBar({ write: () => true, isTTY: true }, { TERM: 'dumb' }), false)
  assert.equal(wantsBar({ write: () => true }, {}), false)
})

test('a log line clears the bar, is written, and the bar is drawn again below it; stop clears it', async () => {
  let written = ''
  const terminal = {
    write: (text: string) => {
      written += text
      return true
    },
    isTTY: true,
    columns: 200,
  }
  const bar = new ProgressBar(
    terminal,
    () => VIEW,
    (text) => text.replace('big-bucket', '[redacted]'),
  )
  bar.start()
  const drawn = `\r${barLine(VIEW, 200).replace('big-bucket', '[redacted]')}\u001b[K`
  assert.equal(written, drawn)
  written = ''
  await new Promise<void>((resolve) => bar.logStream.write('a log line\n', () => resolve()))
  assert.equal(written, `\r\u001b[Ka log line\n${drawn}`)
  written = ''
  bar.stop()
  assert.equal(written, '\r\u001b[K')
  written = ''
  await new Promise<void>((resolve) => bar.logStream.write('after\n', () => resolve()))
  assert.equal(written, 'after\n', 'once stopped, lines pass through and no bar comes back')
})
