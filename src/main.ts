#!/usr/bin/env node
import { runCli } from './cli/index.js'

/**
 * The process entry: `npm start`, `node dist/main.js` and the `objstore-exporter` bin. With no
 * command it serves, as it always has; src/cli/ holds the commands.
 */
runCli(process.argv).catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error)
  process.stderr.write(`objstore-exporter: failed to start: ${message}\n`)
  process.exit(1)
})
