import { type CatalogueName, catalogue } from '../../src/collectors/catalogue.js'
import { exposedFamily } from '../../src/metrics/families.js'

/**
 * How the rows name metrics: from the catalogue by name (a family that does not exist fails
 * type-checking), under the dashboard's namespace, as the exporter serves them (MinIO's names
 * under `minio`). Every query filters on `$job` and `$instance`;
 * bucket queries also on `$bucket`.
 */
export interface Queries {
  /** The full name of a family. */
  readonly m: (name: CatalogueName) => string
  /**
   * A family with the job and instance selector (or another), in the family's own unit: a MinIO
   * name in another unit (nanoseconds) is divided back into it.
   */
  readonly at: (name: CatalogueName, selector?: string) => string
  /** A family with the job, instance and bucket selector. */
  readonly b: (name: CatalogueName) => string
  readonly sel: string
  readonly bucketSel: string
  /**
   * A series recorded by config/alerts.yml, `level:<namespace>_name:operations` (Prometheus's
   * naming), so the sed that renames the rules for another namespace renames it too.
   */
  readonly recorded: (level: string, name: string, operations: string) => string
}

export function queries(namespace: string): Queries {
  const m = (name: CatalogueName) => exposedFamily(namespace, catalogue[name]).name
  const sel = '{job=~"$job", instance=~"$instance"}'
  const bucketSel = '{job=~"$job", instance=~"$instance", bucket=~"$bucket"}'
  const at = (name: CatalogueName, selector = sel) => {
    const { scale } = exposedFamily(namespace, catalogue[name])
    return scale === 1 ? `${m(name)}${selector}` : `(${m(name)}${selector} / ${scale})`
  }
  const b = (name: CatalogueName) => at(name, bucketSel)
  const recorded = (level: string, name: string, operations: string) =>
    `${level}:${namespace}_${name}:${operations}`
  return { m, at, b, sel, bucketSel, recorded }
}
