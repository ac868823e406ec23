import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

/** What the benches read of autocannon's `--json` summary. */
export interface AutocannonResult {
  readonly latency: { readonly p50: number; readonly p99: number; readonly max: number }
  readonly requests: { readonly total: number; readonly average: number }
  readonly errors: number
  readonly timeouts: number
  readonly non2xx: number
  readonly statusCodeStats: Record<string, { count: number }>
}

/**
 * autocannon in a process of its own (its CPU is not the server's): `connections` kept-alive
 * connections asking for `url` for `seconds`, with `headers` (`name=value`).
 */
export function runAutocannon(
  url: string,
  options: { connections: number; seconds: number; headers: readonly string[] },
): Promise<AutocannonResult> {
  const require = createRequire(import.meta.url)
  const cli = join(dirname(require.resolve('autocannon/package.json')), 'autocannon.js')
  const headerArgs = options.headers.flatMap((header) => ['-H', header])
  const child = spawn(
    process.execPath,
    [cli, '-c', String(options.connections), '-d', String(options.seconds), ...headerArgs, '--json', url],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  )
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8')
  })
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited with ${code}`))
      resolve(JSON.parse(output) as AutocannonResult)
    })
  })
}
