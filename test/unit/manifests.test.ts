import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import Fastify from 'fastify'
import { parse, parseAllDocuments } from 'yaml'
import { healthRoutes } from '../../src/server/routes/health.js'
import { manifestProblems } from '../support/manifest-schema.js'
import { REPO_ROOT } from '../support/promtool.js'

/**
 * Every Kubernetes manifest under config/kubernetes, validated against the Kubernetes and
 * Prometheus Operator schemas (unknown fields included), and held to the image and routes it
 * deploys. No cluster here: what a cluster would refuse, or accept and silently drop, fails here.
 */

const FOLDER = join(REPO_ROOT, 'config/kubernetes')
const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8')
const manifestFiles = () =>
  readdirSync(FOLDER).filter((name) => /\.ya?ml$/.test(name) && name !== 'kustomization.yaml')

type Json = Parameters<typeof manifestProblems>[0]
interface Manifest {
  apiVersion: string
  kind: string
  metadata: { name: string; namespace?: string }
  spec?: { template?: { spec: PodSpec } }
}
interface Probe {
  httpGet?: { path: string; port: string | number }
  tcpSocket?: { port: string | number }
  exec?: { command: string[] }
}
interface PodSpec {
  containers: Array<{
    name: string
    image: string
    ports: Array<{ name: string; containerPort: number }>
    livenessProbe?: Probe
    readinessProbe?: Probe
  }>
}

const documents = () =>
  manifestFiles().flatMap((file) =>
    parseAllDocuments(readFileSync(join(FOLDER, file), 'utf8')).map((doc) => ({
      file,
      manifest: doc.toJS() as Json,
    })),
  )
const kustomization = () =>
  parse(read('config/kubernetes/kustomization.yaml')) as { namespace: string; resources: string[] }

test('every manifest conforms to its Kubernetes / Prometheus Operator schema, with no unknown field', () => {
  const all = documents()
  assert.ok(all.length >= 7, `only ${all.length} manifests found`)
  const problems = all.flatMap(({ file, manifest }) =>
    manifestProblems(manifest).map((problem) => `${file}: ${problem}`),
  )
  assert.deepEqual(problems, [])
})

test('the schema check refuses a misspelt field, a wrong type and a kind it has no schema for', () => {
  const [first] = parseAllDocuments(read('config/kubernetes/statefulset.yaml'))
  const statefulSet = first?.toJS() as Manifest & { spec: Record<string, unknown> }
  const container = statefulSet.spec.template?.spec.containers[0] as unknown as Record<string, unknown>
  container.livenesProbe = container.livenessProbe
  assert.deepEqual(manifestProblems(statefulSet as unknown as Json), [
    'StatefulSet /spec/template/spec/containers/0/livenesProbe: not in the schema',
  ])
  delete container.livenesProbe
  statefulSet.spec.replicas = 'three'
  assert.match(
    manifestProblems(statefulSet as unknown as Json).join('\n'),
    /\/spec\/replicas: must be integer/,
  )
  assert.match(manifestProblems({ apiVersion: 'apps/v1', kind: 'Deployment' }).join('\n'), /no schema known/)
  const [rule] = parseAllDocuments(read('config/kubernetes/prometheusrule.yaml'))
  const prometheusRule = rule?.toJS() as { spec: { groups: Array<Record<string, unknown>> } }
  const group = prometheusRule.spec.groups.find((candidate) => (candidate.rules as unknown[]).length > 0)
  ;(group?.rules as Array<Record<string, unknown>>)[0] = { alret: 'X', expr: 'up == 0' }
  assert.match(manifestProblems(prometheusRule as unknown as Json).join('\n'), /alret: not in the schema/)
})

test('the kustomization lists exactly the folder manifests and creates the namespace it sets', () => {
  const { namespace, resources } = kustomization()
  assert.deepEqual([...resources].sort(), manifestFiles().sort())
  const namespaces = documents()
    .map(({ manifest }) => manifest as unknown as Manifest)
    .filter((manifest) => manifest.kind === 'Namespace')
  assert.deepEqual(
    namespaces.map((manifest) => manifest.metadata.name),
    [namespace],
  )
  for (const { file, manifest } of documents()) {
    const own = (manifest as unknown as Manifest).metadata.namespace
    assert.ok(own === undefined || own === namespace, `${file}: namespace ${own} is not ${namespace}`)
  }
})

/** `objstore-exporter:<package version>`: what `docker build -t` in the docs produces. */
test('the image tag is one everywhere: docs build command, compose, every workload', () => {
  const { version } = JSON.parse(read('package.json')) as { version: string }
  const tag = `objstore-exporter:${version}`
  const docs = ['README.md', 'docs/deploy.md', 'Dockerfile'].map(read).join('\n')
  const built = [...docs.matchAll(/docker build -t (\S+)/g)].map((match) => match[1])
  assert.ok(built.length > 0, 'no `docker build -t` in README.md, docs/deploy.md or the Dockerfile')
  assert.deepEqual([...new Set(built)], [tag])
  const compose = parse(read('docker-compose.yml')) as { services: Record<string, { image?: string }> }
  assert.equal(compose.services['objstore-exporter']?.image, tag)
  const images = documents().flatMap(({ manifest }) =>
    ((manifest as unknown as Manifest).spec?.template?.spec.containers ?? []).map(
      (container) => container.image,
    ),
  )
  assert.ok(images.length >= 2, `${images.length} images`)
  assert.deepEqual([...new Set(images)], [tag])
})

test('probes name a port the container declares and routes the app serves without a token', async () => {
  const app = Fastify()
  await app.register(healthRoutes, { readiness: { waitingFor: () => [] } as never })
  await app.ready()
  try {
    const workloads = documents()
      .map(({ manifest }) => manifest as unknown as Manifest)
      .filter((manifest) => manifest.spec?.template)
    assert.ok(workloads.length >= 2, `${workloads.length} workloads`)
    for (const workload of workloads) {
      for (const container of workload.spec?.template?.spec.containers ?? []) {
        const ports = container.ports.map((port) => port.name)
        for (const [kind, probe] of Object.entries({
          liveness: container.livenessProbe,
          readiness: container.readinessProbe,
        })) {
          const where = `${workload.metadata.name}/${container.name} ${kind}`
          assert.ok(probe?.httpGet, `${where}: no HTTP probe`)
          assert.ok(ports.includes(String(probe.httpGet.port)), `${where}: port ${probe.httpGet.port}`)
          const answer = await app.inject({ method: 'GET', url: probe.httpGet.path })
          assert.equal(
            answer.statusCode,
            200,
            `${where}: GET ${probe.httpGet.path} answered ${answer.statusCode}`,
          )
        }
      }
    }
  } finally {
    await app.close()
  }
})
