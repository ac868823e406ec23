import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { ExpositionFamily } from '../../src/metrics/exposition/format.js'
import { RUNTIME_MAX_AGE_MS, ScrapeAssembler } from '../../src/metrics/exposition/scrape-assembler.js'
import { familyParts } from '../../src/metrics/exposition/writer.js'
import { MetricSet } from '../../src/metrics/metric-set.js'

/** Runtime families whose value is the number of the reading: each reading shows in the text. */
function countingRuntime(fail: (reading: number) => boolean = () => false) {
  let readings = 0
  return {
    get readings() {
      return readings
    },
    async families(): Promise<ExpositionFamily[]> {
      readings++
      if (fail(readings)) throw new Error(`reading ${readings} failed`)
      return [
        {
          name: 'process_reading',
          help: 'Which reading this is.',
          type: 'gauge',
          samples: [{ name: 'process_reading', labels: [], value: readings }],
        },
      ]
    },
  }
}

function assemblerWith(runtime: ReturnType<typeof countingRuntime>, clock: () => number) {
  return new ScrapeAssembler({
    namespace: 'objstore',
    collection: { run: async () => new MetricSet({}) },
    runtime,
    clock,
  })
}

const text = async (assembler: ScrapeAssembler) =>
  Buffer.concat(familyParts((await assembler.collect(1000)).families, 'text')).toString('utf8')

test('runtime families are read once per max age, and scrapes in between share the reading', async () => {
  let now = 5_000
  const runtime = countingRuntime()
  const assembler = assemblerWith(runtime, () => now)
  assert.match(await text(assembler), /^process_reading 1$/m)
  now += RUNTIME_MAX_AGE_MS - 1
  assert.match(await text(assembler), /^process_reading 1$/m)
  assert.equal(runtime.readings, 1)
  now += 1
  assert.match(await text(assembler), /^process_reading 2$/m)
  // Concurrent scrapes of a new second wait for one reading.
  now += RUNTIME_MAX_AGE_MS
  const [a, b] = await Promise.all([text(assembler), text(assembler)])
  assert.equal(a, b)
  assert.match(a, /^process_reading 3$/m)
  assert.equal(runtime.readings, 3)
})

test('a failed runtime reading fails its scrapes, and the next scrape reads again', async () => {
  const now = 1_000
  const runtime = countingRuntime((reading) => reading === 1)
  const assembler = assemblerWith(runtime, () => now)
  await assert.rejects(assembler.collect(1000), /reading 1 failed/)
  assert.match(await text(assembler), /^process_reading 2$/m)
})
