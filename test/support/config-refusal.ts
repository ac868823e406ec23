import assert from 'node:assert/strict'
import { ConfigError } from '../../src/config/load.js'

/** The lines of the ConfigError that `load` throws; the test fails when it loads without one. */
export function refusalLines(load: () => unknown): readonly string[] {
  try {
    load()
  } catch (error) {
    if (error instanceof ConfigError) return error.lines
    throw error
  }
  assert.fail('the configuration was accepted')
}
