/**
 * Worker-thread entry of the fs walk: runs one WalkTask at a time, synchronously, off the event
 * loop, and answers with its figures or the error's code. It lives as long as its pool
 * (walk-pool.ts): a task it is told to stop (its id in the shared stop cells) ends at the next
 * check, and an `exit` message closes its port, so the thread ends by itself, never terminated.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { WalkStopped, type WalkTask, walkDirectory, walkerName } from './walk.js'

export interface WalkRequest extends WalkTask {
  readonly id: number
  /** Files between two tellings of the objects and bytes folded so far (WalkProgress); 0: none. */
  readonly filesPerProgress: number
}

/** A running task's objects and bytes so far, every FILES_PER_PROGRESS files (walk.ts). */
export interface WalkProgress {
  readonly id: number
  readonly progress: { readonly objects: number; readonly bytes: number }
}

export type WalkMessage = { readonly kind: 'walk'; readonly request: WalkRequest } | { readonly kind: 'exit' }

export interface WalkWorkerData {
  /**
   * Int32 cells: ids of posted tasks to stop (running) or skip (waiting), 0 for empty; then the
   * last cell, which this thread sets to the id of the task it runs (0 between tasks).
   */
  readonly stops: SharedArrayBuffer
}

export type WalkReply = (
  | { readonly id: number; readonly ok: true; readonly result: ReturnType<typeof walkDirectory> }
  | { readonly id: number; readonly ok: false; readonly code: string | undefined; readonly message: string }
) & {
  /** Which walk ran: "native", or "JavaScript (<why>)" (native-walk.ts). */
  readonly walker: string
}

const port = parentPort
if (!port) throw new Error('walk-worker must run on a worker thread')
const cells = new Int32Array((workerData as WalkWorkerData).stops)
const stops = cells.subarray(0, cells.length - 1)
const RUNNING = cells.length - 1

const stopped = (id: number) => () => {
  for (let cell = 0; cell < stops.length; cell++) if (Atomics.load(stops, cell) === id) return true
  return false
}

port.on('message', (message: WalkMessage) => {
  if (message.kind === 'exit') {
    port.close()
    return
  }
  const { request } = message
  let reply: WalkReply
  Atomics.store(cells, RUNNING, request.id)
  try {
    const isStopped = stopped(request.id)
    if (isStopped()) throw new WalkStopped()
    const { filesPerProgress } = request
    const progress = (objects: number, bytes: number) =>
      port.postMessage({ id: request.id, progress: { objects, bytes } } satisfies WalkProgress)
    reply = {
      id: request.id,
      ok: true,
      result: walkDirectory(
        request,
        filesPerProgress > 0 ? { stopped: isStopped, progress, filesPerProgress } : { stopped: isStopped },
      ),
      walker: walkerName(),
    }
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException
    reply = { id: request.id, ok: false, code, message, walker: walkerName() }
  }
  Atomics.store(cells, RUNNING, 0)
  port.postMessage(reply)
})
