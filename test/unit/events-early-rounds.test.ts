import assert from 'node:assert/strict'
import { test } from 'node:test'
import pino from 'pino'
import { loadConfig } from '../../src/config/load.js'
import { EarlyRounds } from '../../src/events/early-rounds.js'
import { changeEventsOf } from '../../src/events/index.js'
import { waitFor } from '../support/wait-for.js'

/** Change events start the next round early (EVENTS_DEBOUNCE_SECONDS), one round per period at most. */

test('events within a debounce period ask for one round; the next period may ask for another', async (t) => {
  let requested = 0
  const rounds = new EarlyRounds({ debounceMs: 30, requestRound: () => requested++ })
  t.after(() => rounds.close())
  const keepAlive = setTimeout(() => undefined, 5_000)
  t.after(() => clearTimeout(keepAlive))
  for (let index = 0; index < 1000; index++) rounds.changed('photos', `key-${index}`)
  assert.equal(requested, 0, 'not before the debounce period ends')
  await waitFor('the first request', () => requested === 1)
  rounds.changed('photos', 'later')
  await waitFor('the second request', () => requested === 2)
  rounds.changed('photos', 'after close')
  rounds.close()
  await new Promise((resolve) => setTimeout(resolve, 60))
  assert.equal(requested, 2, 'a closed listener asks for nothing')
})

test('the wiring: each change reaches the key listener at once and asks for one round per period', async (t) => {
  const config = loadConfig(
    { EVENTS_AUTH_TOKEN: 'wiring-token-0123456789', EVENTS_DEBOUNCE_SECONDS: '0.03' },
    { dotenvPath: false },
  )
  const keys: Array<[string, string]> = []
  let rounds = 0
  const events = changeEventsOf(
    config,
    {
      scanned: () => true,
      requestRound: () => rounds++,
      keys: { changed: (bucket, key) => keys.push([bucket, key]) },
    },
    pino({ level: 'silent' }),
  )
  assert.ok(events)
  t.after(() => events.close())
  const keepAlive = setTimeout(() => undefined, 5_000)
  t.after(() => clearTimeout(keepAlive))
  const record = (key: string) => ({
    eventName: 'ObjectCreated:Put',
    s3: { bucket: { name: 'photos' }, object: { key } },
  })
  const answer = await events.receiver.receive(JSON.stringify({ Records: [record('a'), record('b%20c')] }))
  assert.equal(answer.status, 200)
  assert.deepEqual(keys, [
    ['photos', 'a'],
    ['photos', 'b c'],
  ])
  await waitFor('the round asked for', () => rounds === 1)
  const off = loadConfig({}, { dotenvPath: false })
  assert.equal(changeEventsOf(off, { scanned: () => true, requestRound: () => rounds++ }, pino()), undefined)
})
