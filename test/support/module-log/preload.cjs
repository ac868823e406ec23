'use strict'
// Loaded with `node --require`: appends every module the process loads (CommonJS and ES modules)
// to the file named by OBJSTORE_MODULE_LOG, one path a line. Used by test/integration/footprint.test.ts.
const { appendFileSync } = require('node:fs')
const Module = require('node:module')
const { pathToFileURL } = require('node:url')

const log = process.env.OBJSTORE_MODULE_LOG
if (log) {
  const load = Module._load
  Module._load = function loadLogged(request, parent, isMain, ...rest) {
    try {
      appendFileSync(log, `${Module._resolveFilename(request, parent, isMain)}\n`)
    } catch {
      // A request that does not resolve fails in load below, as it would have.
    }
    return load.call(this, request, parent, isMain, ...rest)
  }
  Module.register(pathToFileURL(`${__dirname}/hooks.mjs`), { data: { log } })
}
