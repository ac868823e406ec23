import type { RuleParameters } from './parameters.js'

/** An alert's runbook: its section of docs/runbook.md, under the one configurable base. */
export function runbookUrl(alert: string, parameters: RuleParameters): string {
  return `${parameters.runbookBase}#${alert.toLowerCase()}`
}

/**
 * Every `runbook_url: "...#anchor"` line of a rule file or its tests pointed at the base, the
 * anchor kept: the hand-written rules follow the same base as the generated ones.
 */
export function rebaseRunbookUrls(text: string, parameters: RuleParameters): string {
  return text.replace(
    /^(\s*runbook_url: )"[^"#\n]*#([a-z0-9-]+)"$/gm,
    (_line, key: string, anchor: string) => `${key}"${parameters.runbookBase}#${anchor}"`,
  )
}
