import { parentPort } from 'node:worker_threads'
import { compareSync } from 'bcryptjs'

/** One comparison asked of the thread; the password lives only in this message and its answer's making. */
export interface BcryptRequest {
  readonly id: number
  readonly password: string
  readonly hash: string
}

export interface BcryptAnswer {
  readonly id: number
  readonly matches: boolean
}

// One request at a time, in order: the thread is the queue (exporter-toolkit holds a mutex).
parentPort?.on('message', ({ id, password, hash }: BcryptRequest) => {
  const answer: BcryptAnswer = { id, matches: compareSync(password, hash) }
  parentPort?.postMessage(answer)
})
