/** A Prometheus rule as config/alerts.yml writes it. */
export interface Rule {
  readonly record?: string
  readonly alert?: string
  readonly expr: string
  readonly for?: string
  readonly labels?: Readonly<Record<string, string>>
  readonly annotations?: Readonly<Record<string, string>>
}

export interface RuleGroup {
  readonly name: string
  readonly rules: readonly Rule[]
}

/** The metric namespace config/alerts.yml is written for (a sed renames it, as its header says). */
export const NS = 'objstore'
