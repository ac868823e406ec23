/**
 * Hosts s3rver in its own process, started by test/support/s3rver.ts with
 * --openssl-legacy-provider: s3rver encrypts ListObjectsV2 continuation tokens with DES, which
 * OpenSSL 3 refuses without that flag, so any listing past 1,000 keys would fail. The flag stays
 * on this process and never reaches the exporter. Prints {"port":N} once listening; with
 * `--events`, then each S3 event s3rver emits in-process as {"event": {"Records": [...]}}, one a
 * line (the parent reads them all). Exits when its parent closes stdin or sends SIGTERM.
 */
import { createRequire } from 'node:module'

interface S3rverInstance {
  run(): Promise<{ port: number }>
  close(): Promise<void>
  on(name: 'event', listener: (event: unknown) => void): void
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance

// A plain require() call: s3rver is CommonJS without types, and knip sees the dependency.
const require = createRequire(import.meta.url)
const S3rver = require('s3rver') as S3rverClass
const directory = process.argv[2]
if (!directory) throw new Error('usage: s3rver-child.ts DIRECTORY')

const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory })
if (process.argv.includes('--events'))
  server.on('event', (event) => process.stdout.write(`${JSON.stringify({ event })}\n`))
const { port } = await server.run()
process.stdout.write(`${JSON.stringify({ port })}\n`)

let stopping = false
const stop = () => {
  if (stopping) return
  stopping = true
  server.close().finally(() => process.exit(0))
}
process.once('SIGTERM', stop)
process.stdin.on('end', stop)
process.stdin.resume()
