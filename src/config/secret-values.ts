import type { Config } from './load.js'
import { SECRET_VARIABLES } from './schema.js'

/** The values of the secret variables that are set, for blanking them out of anything shown. */
export function secretValues(config: Config): string[] {
  const values: string[] = []
  for (const name of SECRET_VARIABLES) {
    const value = (config as Readonly<Record<string, unknown>>)[name]
    if (typeof value === 'string' && value !== '') values.push(value)
  }
  return values
}
