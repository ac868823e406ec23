import {
  PodMonitor,
  PrometheusRule,
  ServiceMonitor,
} from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1'
import { DaemonSet, StatefulSet } from 'kubernetes-models/apps/v1'
import { Namespace, Service } from 'kubernetes-models/v1'

/**
 * Kubernetes and Prometheus Operator manifests checked against their published OpenAPI schemas
 * (`kubernetes-models`, `@kubernetes-models/prometheus-operator`), strictly.
 *
 * The packages' validators check types, enums and required fields, but accept any property they
 * do not know (the schemas are open), so `livenesProbe:` or `metricRelabellings:` would pass and
 * be dropped silently by the API server. Unknown fields are found by probing: each property in
 * turn is given a value no schema accepts; a validator that looks at that property reports an
 * error there, one that does not know it says nothing.
 */

interface Validating {
  validate(): void
}
type ModelClass = new (data: never) => Validating

/** The kinds the deployment uses, by `apiVersion kind`. Another kind has no schema here: refused. */
const MODELS: Record<string, ModelClass> = {
  'v1 Namespace': Namespace,
  'v1 Service': Service,
  'apps/v1 StatefulSet': StatefulSet,
  'apps/v1 DaemonSet': DaemonSet,
  'monitoring.coreos.com/v1 ServiceMonitor': ServiceMonitor,
  'monitoring.coreos.com/v1 PodMonitor': PodMonitor,
  'monitoring.coreos.com/v1 PrometheusRule': PrometheusRule,
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
interface SchemaError {
  readonly instancePath: string
  readonly message?: string
}

/** The validator's errors for `manifest` (empty when it conforms). */
function schemaErrors(Model: ModelClass, manifest: unknown): SchemaError[] {
  try {
    new Model(manifest as never).validate()
    return []
  } catch (error) {
    const errors = (error as { errors?: SchemaError[] }).errors
    if (!errors) throw error
    return errors
  }
}

const pointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1')

/** Every object property under `value`, as JSON pointers with the path of keys to reach it. */
function properties(value: Json, path: Array<string | number> = []): Array<Array<string | number>> {
  if (Array.isArray(value)) return value.flatMap((item, index) => properties(item, [...path, index]))
  if (value === null || typeof value !== 'object') return []
  return Object.entries(value).flatMap(([key, child]) => [
    [...path, key],
    ...properties(child, [...path, key]),
  ])
}

function withProbe(manifest: Json, path: Array<string | number>): Json {
  const copy = structuredClone(manifest)
  let node = copy as Record<string | number, Json>
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, Json>
  // A symbol is no string, number, boolean, object or array: every typed schema refuses it.
  node[path[path.length - 1] as string | number] = Symbol('probe') as unknown as Json
  return copy
}

/**
 * Problems of one manifest, one line each: no schema for its kind, schema errors, unknown fields
 * (`/spec/template/spec/containers/0/livenesProbe: not in the schema`).
 */
export function manifestProblems(manifest: Json): string[] {
  const { apiVersion, kind } = (manifest ?? {}) as { apiVersion?: string; kind?: string }
  const Model = MODELS[`${apiVersion} ${kind}`]
  if (!Model) return [`${apiVersion} ${kind}: no schema known for this kind`]
  const problems = schemaErrors(Model, manifest).map(
    (error) => `${kind} ${error.instancePath || '/'}: ${error.message ?? 'invalid'}`,
  )
  if (problems.length > 0) return problems
  const unknown: string[] = []
  for (const path of properties(manifest)) {
    const at = `/${path.map((key) => pointer(String(key))).join('/')}`
    // Below an unknown field everything is unknown: name the outermost only.
    if (unknown.some((outer) => at.startsWith(`${outer}/`))) continue
    const seen = schemaErrors(Model, withProbe(manifest, path)).some(
      (error) => error.instancePath === at || error.instancePath.startsWith(`${at}/`),
    )
    if (seen) continue
    unknown.push(at)
    problems.push(`${kind} ${at}: not in the schema`)
  }
  return problems
}
