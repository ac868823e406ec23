// ES module hooks of preload.cjs: every module loaded, appended to the log file.
import { appendFileSync } from 'node:fs'

let log = ''

export function initialize(data) {
  log = data.log
}

export async function load(url, context, next) {
  appendFileSync(log, `${url}\n`)
  return next(url, context)
}
