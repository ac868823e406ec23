import { fork } from 'node:child_process'
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'

/**
 * One measurement in a fresh process: a bench module forks itself (`moduleUrl`, its
 * import.meta.url), sends `request`, and gets one reply, so the figure is of a heap that holds
 * only what an exporter would, not the bench's generated data. The child answers with
 * answerParent(). It exits on its own once it has answered (a --cpu-prof profile is written
 * then); after 30 s it is killed.
 */
export async function askFreshChild<Reply extends object>(
  moduleUrl: string,
  request: unknown,
  options: { readonly what: string; readonly execArgv?: readonly string[] },
): Promise<Reply> {
  const child = fork(fileURLToPath(moduleUrl), [], {
    execArgv: ['--import', 'tsx', ...(options.execArgv ?? [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  try {
    child.send(request as object)
    const [reply] = (await Promise.race([once(child, 'message'), once(child, 'exit')])) as [
      Reply | { error: string } | number,
    ]
    if (typeof reply !== 'object' || 'error' in reply)
      throw new Error(`${options.what} child: ${typeof reply === 'object' ? reply.error : `exit ${reply}`}`)
    return reply as Reply
  } finally {
    if (child.exitCode === null && child.signalCode === null)
      await Promise.race([once(child, 'exit'), sleep(30_000)])
    if (child.exitCode === null && child.signalCode === null) {
      child.kill()
      await once(child, 'exit')
    }
  }
}

/**
 * In the child: when this module is the process's entry (`moduleUrl` its import.meta.url) and it
 * was forked, answers the parent's one request with `answer` (or its error), then lets go.
 */
export async function answerParent<Request>(
  moduleUrl: string,
  answer: (request: Request) => Promise<object>,
): Promise<void> {
  if (!process.send || process.argv[1] !== fileURLToPath(moduleUrl)) return
  const [request] = (await once(process, 'message')) as [Request]
  try {
    process.send(await answer(request))
  } catch (error) {
    process.send({ error: (error as Error).message })
  }
  process.disconnect()
}
