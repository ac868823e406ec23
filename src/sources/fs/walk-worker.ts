/**
 * Worker-thread entry of the fs walk: runs one WalkTask at a time, synchronously, off the event
 * loop, and answers with its figures or the error's code.
 */
import { parentPort } from 'node:worker_threads'
import { type WalkTask, walkDirectory, walkerName } from './walk.js'

export interface WalkRequest extends WalkTask {
  readonly id: number
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

port.on('message', (request: WalkRequest) => {
  let reply: WalkReply
  try {
    reply = { id: request.id, ok: true, result: walkDirectory(request), walker: walkerName() }
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException
    reply = { id: request.id, ok: false, code, message, walker: walkerName() }
  }
  port.postMessage(reply)
})
