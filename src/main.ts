#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8'

/**
 * The process entry: `npm start`, `node dist/main.js` and the `objstore-exporter` bin. With no
 * command it serves, as it always has; src/cli/ holds the commands.
 *
 * The young generation: V8 doubles it each time the objects surviving its collections add up to
 * its size, and start-up (loading the code, building schemas and the server) leaves some 17 MB that
 * all survive, so it grew from 1 MB to its 16 MB maximum per semi-space before the first scrape,
 * and stayed there: 32 MB committed, about 13 MB of an idle exporter's resident set (measured:
 * 89-90 MB against 76-77 MB without the growth). It is kept from growing until the command has
 * started (modules are imported only then, hence the dynamic import), then V8's default factor (2)
 * is restored, so scans and scrapes under load grow it as before. Left alone when the operator set
 * the factor (NODE_OPTIONS or a node flag).
 */
const GROWTH_FLAG = '--semi-space-growth-factor'
// V8 reads its flags with dashes or underscores.
const operatorSet = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((arg) =>
  /semi[-_]space[-_]growth[-_]factor/.test(arg),
)
if (!operatorSet) setFlagsFromString(`${GROWTH_FLAG}=1`)
const { runCli } = await import('./cli/index.js')

runCli(process.argv)
  .then(() => {
    if (!operatorSet) setFlagsFromString(`${GROWTH_FLAG}=2`)
  })
  .catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error)
    process.stderr.write(`objstore-exporter: failed to start: ${message}\n`)
    process.exit(1)
  })
