import { consoleTarget } from './console/index.js'
import { httpTarget } from './http/index.js'

/**
 * Every log target there is: the one list from which LOG_TARGETS's accepted names, the schema
 * (each target's variables), the secrets, docs/configuration.md's table and createLogger's factories derive.
 * A new target (file, syslog) is one folder here exporting a LogTargetDefinition, and one entry.
 * The order is the order targets are built in, whatever order LOG_TARGETS names them.
 *
 * Why the targets are streams of one pino.multistream in this process, not pino.transport
 * workers (a transport runs its stream in a worker thread through thread-stream):
 * - a target's counters (stats()) are read synchronously at scrape time (the logger_* families,
 *   through collectors/logger.ts), and its queue bound, drops and shutdown deadline are decided
 *   here (close(withinMs) counts what is left as dropped); in a worker each would be a message
 *   round trip, which a collector's synchronous collect() cannot wait for;
 * - a target reports its own trouble through the other targets (reporterFor in
 *   create-logger.ts), never into itself; across threads that routing has no cheap form;
 * - exit: on process exit pino flushes a transport synchronously (thread-stream's flushSync spins
 *   on Atomics.wait, up to 10 s), and Node joins worker threads on exit (a8e0bba: the exit path
 *   already ends by signal because of stuck walk threads). A worker stuck on a dead receiver would
 *   stretch the SHUTDOWN_TIMEOUT_MS deadline that close(withinMs) keeps;
 * - the console writes synchronously (sync: true), so the line logged just before a forced
 *   process.exit (the shutdown deadline) is written, not left in a buffer.
 * The cost a transport would avoid, serialising on the main thread, is small here: the HTTP
 * target's write is an O(1) push into a bounded queue and its network I/O is asynchronous.
 */
export const LOG_TARGET_DEFINITIONS = [consoleTarget, httpTarget] as const

export type LogTargetName = (typeof LOG_TARGET_DEFINITIONS)[number]['name']

export const LOG_TARGET_NAMES: readonly LogTargetName[] = LOG_TARGET_DEFINITIONS.map((target) => target.name)
