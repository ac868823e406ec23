import { type Families, unionOf } from '../metrics/families.js'
import { budgetFamilies } from './budget-families.js'
import { drivesFamilies } from './drives.js'
import { eventFamilies } from './events.js'
import { exporterFamilies } from './exporter-families.js'
import { loggerFamilies } from './logger.js'
import { priceFamilies } from './prices.js'
import { sourceRequestFamilies } from './source-requests.js'
import { usageSnapshotFamilies } from './usage-series.js'

/**
 * The catalogue: every metric family the exporter can ever emit, as the union of what each part
 * declares next to the code that emits it (drives.ts; usage-series.ts's usageSnapshotFamilies,
 * itself the union of usage-series.ts,
 * user-series.ts, scan-health.ts and src/figures/; source-requests.ts, prices.ts, exporter-families.ts,
 * budget-families.ts, logger.ts, events.ts). Its order is the exposition order. docs/metrics.md's reference,
 * the dashboard and the alert-rule checks read it; a family declared twice is refused at import.
 */
export const catalogue = unionOf(
  [
    drivesFamilies,
    usageSnapshotFamilies,
    sourceRequestFamilies,
    priceFamilies,
    exporterFamilies,
    budgetFamilies,
    loggerFamilies,
    eventFamilies,
  ],
  ['drives', 'usage snapshot', 'source requests', 'prices', 'exporter', 'series budget', 'logger', 'events'],
)

export type Catalogue = typeof catalogue
export type CatalogueName = keyof Catalogue & string

export const familyNames = Object.keys(catalogue) as CatalogueName[]

/**
 * `declared` ordered as the catalogue orders families; families the catalogue lacks (a test's
 * own collectors) come last, in their order.
 */
export function inCatalogueOrder<F extends Families>(declared: F): F {
  const rank = (name: string) => {
    const index = familyNames.indexOf(name as CatalogueName)
    return index < 0 ? familyNames.length : index
  }
  const names = Object.keys(declared).sort((a, b) => rank(a) - rank(b))
  return Object.fromEntries(names.map((name) => [name, declared[name]])) as F
}
