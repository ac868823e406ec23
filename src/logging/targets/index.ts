import { consoleTarget } from './console/index.js'
import { httpTarget } from './http/index.js'

/**
 * Every log target there is: the one list from which LOG_TARGETS's accepted names, the schema
 * (each target's variables), the secrets, the README table and createLogger's factories derive.
 * A new target (file, syslog) is one folder here exporting a LogTargetDefinition, and one entry.
 * The order is the order targets are built in, whatever order LOG_TARGETS names them.
 *
 * Why the targets are streams of one pino.multistream in this process, not pino.transport
 * workers: a transport runs its stream in a worker thread (thread-stream), and
 * - the HTTP target's counters must be read synchronously at scrape time (the logger_http_*
 *   families) and its queue bound, drops and shutdown deadline are decided here (close(withinMs)
 *   counts what is left as dropped); in a worker they would need messaging and could not be read
 *   in a collector's synchronous collect();
 * - each target reports its own trouble through the other targets (reporterFor in
 *   create-logger.ts); across threads that routing would loop back or be lost;
 * - Node joins every worker thread on exit, process.exit included (a8e0bba: the exit path
 *   already has to end by signal because of stuck walk threads); a transport worker blocked on a
 *   dead receiver would hold the exit the same way;
 * - the console writes synchronously (sync: true), so the last lines before an exit (a refused
 *   configuration, the shutdown summary) are never lost in a worker's buffer.
 * The cost a transport avoids, serialising on the main thread, is small here: the HTTP target's
 * write is an O(1) push into a bounded queue, and the network I/O is asynchronous anyway.
 */
export const LOG_TARGET_DEFINITIONS = [consoleTarget, httpTarget] as const

export type LogTargetName = (typeof LOG_TARGET_DEFINITIONS)[number]['name']

export const LOG_TARGET_NAMES: readonly LogTargetName[] = LOG_TARGET_DEFINITIONS.map((target) => target.name)
