import assert from 'node:assert/strict'
import { test } from 'node:test'
import { EarlyRounds } from '../../src/events/early-rounds.js'
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
