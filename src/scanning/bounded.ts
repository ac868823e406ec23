import { linkedAbort } from '../sources/linked-abort.js'
import { SourceError } from '../sources/types.js'
import { untilAborted } from './concurrency.js'

/**
 * Runs `work` within `timeoutMs` (SCAN_TIMEOUT_SECONDS): its signal aborts when the scan does or
 * the time is up, and the result is given up at that moment even if `work` ignores the signal.
 */
export async function bounded<T>(
  scanSignal: AbortSignal,
  timeoutMs: number,
  what: string,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const abort = linkedAbort(scanSignal)
  const timer = setTimeout(() => {
    const limit = timeoutMs / 1000
    abort.controller.abort(new SourceError(`${what} within SCAN_TIMEOUT_SECONDS (${limit} s)`, 'failed'))
  }, timeoutMs)
  timer.unref()
  const { signal } = abort
  try {
    return await untilAborted(work(signal), signal)
  } finally {
    clearTimeout(timer)
    abort.dispose()
  }
}
