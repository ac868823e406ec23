import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { dirname, join, posix, relative } from 'node:path'
import { test } from 'node:test'
import { parse, parseAllDocuments } from 'yaml'
import { buildPrometheusRule } from '../../scripts/generate-prometheusrule.js'
import { catalogue, familyNames } from '../../src/collectors/catalogue.js'
import { envSchema, GUARDED_VARIABLES } from '../../src/config/schema.js'
import { unknownVariables } from '../../src/config/unknown-variables.js'
import { fullName } from '../../src/metrics/families.js'
import { REPO_ROOT } from '../support/promtool.js'

/**
 * The deployment files are not run here (no Docker engine, no cluster): these tests hold them to
 * the facts of the code they deploy, the mistakes that otherwise show only in production.
 */

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8')
const DEFAULT_PORT = envSchema.properties.PORT.default
const VARIABLES = new Set(Object.keys(envSchema.properties))

const isVariable = (name: string) => VARIABLES.has(name)

// ---------------------------------------------------------------------------------------- Dockerfile

interface Instruction {
  readonly keyword: string
  readonly args: string
}

function dockerfile(): { stages: Instruction[][]; all: Instruction[] } {
  const joined = read('Dockerfile').replace(/\\\n/g, ' ')
  const all = joined
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [keyword = '', ...rest] = line.split(/\s+/)
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') }
    })
  const stages: Instruction[][] = []
  for (const instruction of all) {
    if (instruction.keyword === 'FROM') stages.push([])
    stages[stages.length - 1]?.push(instruction)
  }
  return { stages, all }
}

test('Dockerfile: multi-stage on a current Node LTS, production dependencies only', () => {
  const { stages, all } = dockerfile()
  assert.ok(stages.length >= 2, 'multi-stage')
  const base = all.find(
    (instruction) => instruction.keyword === 'ARG' && instruction.args.startsWith('NODE_IMAGE='),
  )
  const major = Number(/^NODE_IMAGE=node:(\d+)/.exec(base?.args ?? '')?.[1])
  assert.ok(major >= 22 && major % 2 === 0, `Node ${major} is not a current LTS line`)
  const final = stages[stages.length - 1] ?? []
  const runs = final
    .filter((instruction) => instruction.keyword === 'RUN')
    .map((instruction) => instruction.args)
  assert.ok(
    !runs.some((run) => /npm (ci|install)(?!.*--omit=dev)/.test(run)),
    'dev dependencies in the final stage',
  )
  assert.ok(
    all.some((instruction) => instruction.keyword === 'RUN' && /npm ci --omit=dev/.test(instruction.args)),
    'no npm ci --omit=dev',
  )
  const copies = final
    .filter((instruction) => instruction.keyword === 'COPY')
    .map((instruction) => instruction.args)
  assert.ok(
    copies.some((copy) => /--from=\w+ \/app\/dist/.test(copy)),
    'dist/ is not copied from the build stage',
  )
  assert.ok(!copies.some((copy) => /\bsrc\b/.test(copy)), 'sources copied into the final stage')
})

test('Dockerfile: non-root numeric user, init process, port and health check match the code', () => {
  const final = dockerfile().stages.at(-1) ?? []
  const find = (keyword: string) => final.filter((instruction) => instruction.keyword === keyword)
  const user = find('USER').at(-1)?.args ?? ''
  assert.match(
    user,
    /^[1-9]\d*(:\d+)?$/,
    `USER ${user}: numeric and not root (Kubernetes checks runAsNonRoot by number)`,
  )
  assert.deepEqual(
    find('EXPOSE').map((instruction) => instruction.args),
    [String(DEFAULT_PORT)],
  )
  // tini, then the command line itself: `docker run IMAGE check-config` runs that subcommand.
  assert.match(find('ENTRYPOINT')[0]?.args ?? '', /^\["\/usr\/bin\/tini", "--", "node", "dist\/main\.js"\]$/)
  const healthcheck = find('HEALTHCHECK')[0]?.args ?? ''
  assert.match(healthcheck, /CMD \["node", "dist\/healthcheck\.js"\]$/)
  assert.ok(
    existsSync(join(REPO_ROOT, 'src/healthcheck.ts')),
    'dist/healthcheck.js is built from src/healthcheck.ts',
  )
  assert.equal(find('CMD').at(-1)?.args, '["serve"]', 'no arguments: serve, the default subcommand')
  const env = find('ENV')
    .map((instruction) => instruction.args)
    .join(' ')
  for (const [, name] of env.matchAll(/(\w+)=/g)) {
    assert.ok(
      name === 'NODE_ENV' || isVariable(name ?? ''),
      `ENV ${name} is not a variable the exporter reads`,
    )
  }
})

test('.dockerignore lets in exactly what the Dockerfile copies from the context', () => {
  const allowed = read('.dockerignore')
    .split('\n')
    .filter((line) => line.startsWith('!'))
    .map((line) => line.slice(1).replace(/\/$/, ''))
  const copied = dockerfile()
    .all.filter((instruction) => instruction.keyword === 'COPY' && !instruction.args.startsWith('--from'))
    .flatMap((instruction) => instruction.args.split(/\s+/).slice(0, -1))
  assert.deepEqual([...new Set(copied)].sort(), [...allowed].sort())
})

test('the code imports at run time only production dependencies (npm ci --omit=dev is enough)', () => {
  const pkg = JSON.parse(read('package.json')) as { dependencies: Record<string, string> }
  const walk = (folder: string): string[] =>
    readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? walk(join(folder, entry.name))
        : entry.name.endsWith('.ts')
          ? [join(folder, entry.name)]
          : [],
    )
  const wrong: string[] = []
  for (const file of walk(join(REPO_ROOT, 'src'))) {
    const source = readFileSync(file, 'utf8')
    for (const [, kind, specifier = ''] of source.matchAll(/^\s*import (type )?[^'"]*?from '([^']+)'/gm)) {
      if (kind || specifier.startsWith('.') || specifier.startsWith('node:')) continue
      const name = specifier.startsWith('@')
        ? specifier.split('/').slice(0, 2).join('/')
        : (specifier.split('/')[0] ?? '')
      if (builtinModules.includes(name)) continue
      if (!(name in pkg.dependencies)) wrong.push(`${relative(REPO_ROOT, file)}: ${specifier}`)
    }
  }
  assert.deepEqual(wrong, [], 'imported at run time but not in dependencies')
})

// ----------------------------------------------------------------------------------- docker-compose

interface ComposeService {
  environment?: Record<string, string | number>
  env_file?: Array<string | { path: string; required?: boolean }>
  volumes?: string[]
  ports?: string[]
  build?: string
  read_only?: boolean
  healthcheck?: { test?: string[]; disable?: boolean }
}

/** The container side of a short-syntax volume (`${HOST_DATA_PATH:-./data}:/data:ro` gives /data). */
const mountTarget = (volume: string) => {
  const parts = volume.split(':')
  return (/^(ro|rw)$/.test(parts.at(-1) ?? '') ? parts.at(-2) : parts.at(-1)) ?? ''
}

const composeFile = () => parse(read('docker-compose.yml')) as { services: Record<string, ComposeService> }

/**
 * What the exporter container's environment is, as Compose builds it: the optional `.env` read
 * through env_file, then `environment:` on top (Compose gives `environment` precedence).
 */
function containerEnvironment(service: ComposeService, dotenv: Record<string, string>): Map<string, string> {
  const env = new Map<string, string>()
  for (const entry of service.env_file ?? []) {
    const path = typeof entry === 'string' ? entry : entry.path
    if (posix.normalize(path) === '.env')
      for (const [name, value] of Object.entries(dotenv)) env.set(name, value)
  }
  for (const [name, value] of Object.entries(service.environment ?? {})) env.set(name, String(value))
  return env
}

test('docker-compose: every variable of the configuration in .env reaches the exporter', () => {
  const exporter = composeFile().services['objstore-exporter'] as ComposeService
  const optionalDotenv = (exporter.env_file ?? []).find(
    (entry) => typeof entry === 'object' && posix.normalize(entry.path) === '.env',
  )
  assert.deepEqual(optionalDotenv, { path: '.env', required: false }, 'env_file .env, optional')
  const dotenv = Object.fromEntries([...VARIABLES].map((name) => [name, `from-dotenv-${name}`]))
  const container = containerEnvironment(exporter, dotenv)
  // Only the container's side of the ports and mounts is pinned; every other variable is the user's.
  const pinned = [...VARIABLES].filter((name) => container.get(name) !== dotenv[name]).sort()
  assert.deepEqual(pinned, ['DATA_DIR', 'HOST', 'PORT', 'STATE_FILE'])
  const env = containerEnvironment(exporter, {})
  assert.equal(env.get('HOST'), '0.0.0.0')
  assert.deepEqual(exporter.ports, [`${env.get('PORT')}:${env.get('PORT')}`])
  const mounts = (exporter.volumes ?? []).map(mountTarget)
  assert.ok(mounts.includes(env.get('DATA_DIR') ?? ''), 'DATA_DIR is the data mount')
  for (const value of env.values())
    assert.doesNotMatch(value, /\$\{/, 'no interpolation: .env reaches it as is')
  // Drives are the user's choice: no DRIVES and no host disk mounted beyond the data folder.
  assert.equal(env.has('DRIVES'), false)
  assert.deepEqual(mounts, ['/data', posix.dirname(env.get('STATE_FILE') ?? '')])
})

test('docker-compose: the names it interpolates from .env draw no unknown-variable warning', () => {
  const names = [...read('docker-compose.yml').matchAll(/\$\{(\w+)/g)].map((match) => match[1] ?? '')
  assert.ok(names.includes('HOST_DATA_PATH'), `compose interpolates ${names.join(', ')}`)
  assert.deepEqual(
    unknownVariables(new Set(names), [...VARIABLES], GUARDED_VARIABLES).map((unknown) => unknown.name),
    [],
  )
})

test("docker-compose: the health check is the image's, whose script is built from src", () => {
  const exporter = composeFile().services['objstore-exporter'] as ComposeService
  const command = exporter.healthcheck?.test ?? ['CMD', 'node', 'dist/healthcheck.js']
  const script = command.find((part) => part.startsWith('dist/')) ?? ''
  assert.match(script, /^dist\/.+\.js$/, `health check ${command.join(' ')} runs no built script`)
  assert.ok(existsSync(join(REPO_ROOT, script.replace(/^dist\//, 'src/').replace(/\.js$/, '.ts'))), script)
  const healthcheck = dockerfile()
    .stages.at(-1)
    ?.find((instruction) => instruction.keyword === 'HEALTHCHECK')
  assert.ok(healthcheck?.args.includes(`"${script}"`), 'compose and the Dockerfile run the same check')
})

test('docker-compose: exporter variables exist, mounted files exist, Prometheus and Grafana find theirs', () => {
  const compose = composeFile()
  const exporter = compose.services['objstore-exporter']
  assert.ok(exporter, 'the exporter service is named as config/prometheus.yml targets it')
  for (const name of Object.keys(exporter.environment ?? {}))
    assert.ok(isVariable(name), `unknown variable ${name}`)
  assert.deepEqual(exporter.ports, [`${DEFAULT_PORT}:${DEFAULT_PORT}`])
  assert.equal(exporter.read_only, true)

  const mounts = Object.values(compose.services).flatMap((service) => service.volumes ?? [])
  for (const mount of mounts) {
    const [source = ''] = mount.split(':')
    if (source.startsWith('./')) assert.ok(existsSync(join(REPO_ROOT, source)), `${source} does not exist`)
  }
  // The STATE_FILE folder is a writable volume (the root filesystem is read-only).
  const stateDir = posix.dirname(String(exporter.environment?.STATE_FILE ?? '/missing/x'))
  assert.ok(
    (exporter.volumes ?? []).some((volume) => mountTarget(volume) === stateDir && !volume.endsWith(':ro')),
    `${stateDir} is not a writable volume`,
  )

  const prometheusConfig = parse(read('config/prometheus.yml')) as {
    rule_files: string[]
    scrape_configs: Array<{ static_configs: Array<{ targets: string[] }> }>
  }
  assert.deepEqual(prometheusConfig.scrape_configs[0]?.static_configs[0]?.targets, [
    `objstore-exporter:${DEFAULT_PORT}`,
  ])
  const prometheusMounts = compose.services.prometheus?.volumes ?? []
  const configDir = posix.dirname(
    prometheusMounts.find((mount) => mount.startsWith('./config/prometheus.yml:'))?.split(':')[1] ?? '',
  )
  for (const ruleFile of prometheusConfig.rule_files) {
    assert.ok(
      prometheusMounts.some((mount) => mount.split(':')[1] === posix.join(configDir, ruleFile)),
      `rule file ${ruleFile} is not mounted next to prometheus.yml`,
    )
  }
  const provider = parse(read('grafana/provisioning/dashboards/objstore-exporter.yml')) as {
    providers: Array<{ options: { path: string } }>
  }
  const grafanaMounts = compose.services.grafana?.volumes ?? []
  assert.ok(grafanaMounts.includes(`./grafana/dashboards:${provider.providers[0]?.options.path}:ro`))
  assert.ok(grafanaMounts.includes('./grafana/provisioning:/etc/grafana/provisioning:ro'))
})

// -------------------------------------------------------------------------------------- Kubernetes

type Manifest = {
  kind: string
  metadata: { name: string; labels?: Record<string, string> }
  spec: Record<string, unknown>
}

function manifests(): Manifest[] {
  const folder = join(REPO_ROOT, 'config/kubernetes')
  return readdirSync(folder)
    .filter((name) => name.endsWith('.yaml') && name !== 'kustomization.yaml')
    .flatMap((name) =>
      parseAllDocuments(readFileSync(join(folder, name), 'utf8')).map((doc) => doc.toJS() as Manifest),
    )
}

interface Container {
  name: string
  ports: Array<{ name: string; containerPort: number }>
  env?: Array<{ name: string; value?: string }>
  securityContext: {
    allowPrivilegeEscalation: boolean
    readOnlyRootFilesystem: boolean
    capabilities: { drop: string[] }
  }
  livenessProbe: { httpGet: { path: string; port: string } }
  readinessProbe: { httpGet: { path: string; port: string } }
  volumeMounts?: Array<{ mountPath: string; readOnly?: boolean }>
}
interface PodTemplate {
  metadata: { labels: Record<string, string> }
  spec: { securityContext: { runAsNonRoot: boolean; runAsUser: number }; containers: Container[] }
}

const workloads = () => manifests().filter((manifest) => ['StatefulSet', 'DaemonSet'].includes(manifest.kind))
const template = (workload: Manifest) => workload.spec.template as PodTemplate

test('kustomization lists every manifest', () => {
  const kustomization = parse(read('config/kubernetes/kustomization.yaml')) as { resources: string[] }
  const files = readdirSync(join(REPO_ROOT, 'config/kubernetes')).filter(
    (name) => name.endsWith('.yaml') && name !== 'kustomization.yaml',
  )
  assert.deepEqual([...kustomization.resources].sort(), files.sort())
})

test('Kubernetes workloads run non-root on a read-only root filesystem, with probes on the real endpoints', () => {
  assert.deepEqual(
    workloads()
      .map((workload) => workload.kind)
      .sort(),
    ['DaemonSet', 'StatefulSet'],
  )
  for (const workload of workloads()) {
    const pod = template(workload)
    assert.equal(pod.spec.securityContext.runAsNonRoot, true, workload.metadata.name)
    assert.ok(pod.spec.securityContext.runAsUser > 0, workload.metadata.name)
    for (const container of pod.spec.containers) {
      const where = `${workload.metadata.name}/${container.name}`
      assert.equal(container.securityContext.readOnlyRootFilesystem, true, where)
      assert.equal(container.securityContext.allowPrivilegeEscalation, false, where)
      assert.deepEqual(container.securityContext.capabilities.drop, ['ALL'], where)
      assert.deepEqual(container.ports, [{ name: 'metrics', containerPort: DEFAULT_PORT }], where)
      assert.deepEqual(container.livenessProbe.httpGet, { path: '/healthz', port: 'metrics' }, where)
      assert.deepEqual(container.readinessProbe.httpGet, { path: '/readyz', port: 'metrics' }, where)

      const env = new Map((container.env ?? []).map((variable) => [variable.name, variable.value ?? '']))
      for (const name of env.keys()) {
        const referenced = [...env.values()].some((value) => value.includes(`$(${name})`))
        assert.ok(isVariable(name) || referenced, `${where}: ${name} is not a variable the exporter reads`)
      }
      // Everything the exporter writes must be on a writable volume.
      const writable = (container.volumeMounts ?? [])
        .filter((mount) => !mount.readOnly)
        .map((mount) => mount.mountPath)
      const writes = [
        env.get('DATA_DIR') ?? './data',
        ...(env.get('STATE_FILE') ? [dirname(env.get('STATE_FILE') ?? '')] : []),
      ]
      for (const path of writes) {
        assert.ok(
          writable.some((mount) => path === mount || path.startsWith(`${mount}/`)),
          `${where}: ${path} is written but on the read-only root filesystem`,
        )
      }
    }
  }
})

test('the StatefulSet shards by pod ordinal over its replica count, behind a headless Service', () => {
  const statefulSet = workloads().find((workload) => workload.kind === 'StatefulSet') as Manifest
  const env = template(statefulSet).spec.containers[0]?.env ?? []
  const shard = env.find((variable) => variable.name === 'SHARD')?.value
  assert.equal(shard, `$(POD_INDEX)/${statefulSet.spec.replicas}`)
  const podIndex = env.find((variable) => variable.name === 'POD_INDEX') as unknown as {
    valueFrom: { fieldRef: { fieldPath: string } }
  }
  assert.equal(podIndex.valueFrom.fieldRef.fieldPath, "metadata.labels['apps.kubernetes.io/pod-index']")
  const headless = manifests().find(
    (manifest) => manifest.kind === 'Service' && manifest.metadata.name === statefulSet.spec.serviceName,
  )
  assert.equal(headless?.spec.clusterIP, 'None')
})

test('Services and monitors select the pods they mean, and both roles land in the alerts job', () => {
  const all = manifests()
  const matches = (selector: Record<string, string>, labels: Record<string, string> = {}) =>
    Object.entries(selector).every(([key, value]) => labels[key] === value)
  const alertsJob = /up\{job="([^"]+)"\}/.exec(read('config/alerts.yml'))?.[1]
  const podsOf = (selector: Record<string, string>) =>
    workloads().filter((workload) => matches(selector, template(workload).metadata.labels))

  for (const service of all.filter((manifest) => manifest.kind === 'Service')) {
    const pods = podsOf(service.spec.selector as Record<string, string>)
    assert.equal(pods.length, 1, `${service.metadata.name} selects ${pods.length} workloads`)
  }
  const serviceMonitor = all.find((manifest) => manifest.kind === 'ServiceMonitor') as Manifest
  const selected = all.filter(
    (manifest) =>
      manifest.kind === 'Service' &&
      manifest.spec.clusterIP !== 'None' &&
      matches(
        (serviceMonitor.spec.selector as { matchLabels: Record<string, string> }).matchLabels,
        manifest.metadata.labels,
      ),
  )
  assert.equal(selected.length, 1, 'the ServiceMonitor selects one Service (not the headless one too)')
  const jobLabel = serviceMonitor.spec.jobLabel as string
  assert.equal(selected[0]?.metadata.labels?.[jobLabel], alertsJob)

  const podMonitor = all.find((manifest) => manifest.kind === 'PodMonitor') as Manifest
  const daemonSets = podsOf((podMonitor.spec.selector as { matchLabels: Record<string, string> }).matchLabels)
  assert.deepEqual(
    daemonSets.map((workload) => workload.kind),
    ['DaemonSet'],
  )
  assert.equal(
    template(daemonSets[0] as Manifest).metadata.labels[podMonitor.spec.jobLabel as string],
    alertsJob,
  )
})

test("each role's monitor drops exactly the other role's families", () => {
  const all = manifests()
  const dropRegex = (manifest: Manifest, endpoints: string) => {
    const [endpoint] = manifest.spec[endpoints] as Array<{
      metricRelabelings: Array<{ regex: string; action: string }>
    }>
    const drop = endpoint?.metricRelabelings.find((rule) => rule.action === 'drop')
    return new RegExp(`^(?:${drop?.regex})$`)
  }
  const names = (groups: readonly string[]) =>
    familyNames.filter((key) => groups.includes(catalogue[key].group)).map((key) => fullName('objstore', key))
  const drives = names(['drives'])
  const buckets = names(['usage', 'scanner'])
  const kept = names(['exporter', 'logger'])

  const bucketsRole = dropRegex(
    all.find((manifest) => manifest.kind === 'ServiceMonitor') as Manifest,
    'endpoints',
  )
  assert.deepEqual(
    drives.filter((name) => !bucketsRole.test(name)),
    [],
  )
  assert.deepEqual(
    [...buckets, ...kept].filter((name) => bucketsRole.test(name)),
    [],
  )

  const drivesRole = dropRegex(
    all.find((manifest) => manifest.kind === 'PodMonitor') as Manifest,
    'podMetricsEndpoints',
  )
  assert.deepEqual(
    buckets.filter((name) => !drivesRole.test(name)),
    [],
  )
  assert.deepEqual(
    [...drives, ...kept].filter((name) => drivesRole.test(name)),
    [],
  )
})

test('the PrometheusRule is config/alerts.yml (npm run prometheusrule)', () => {
  const [rule] = manifests().filter((manifest) => manifest.kind === 'PrometheusRule')
  assert.deepEqual(rule, buildPrometheusRule(read('config/alerts.yml')))
})

// ----------------------------------------------------------------------------------------- LICENSE

test("LICENSE is the full Apache License 2.0 that package.json's license names", () => {
  const { license } = JSON.parse(read('package.json')) as { license: string }
  assert.equal(license, 'Apache-2.0')
  const text = read('LICENSE')
  assert.match(
    text,
    /^\s*Apache License\n\s*Version 2\.0, January 2004\n\s*http:\/\/www\.apache\.org\/licenses\/\n/,
  )
  // The nine sections of the terms, their end, and the appendix on how to apply it.
  for (let section = 1; section <= 9; section++) assert.match(text, new RegExp(`\\n\\s*${section}\\. [A-Z]`))
  assert.match(text, /END OF TERMS AND CONDITIONS/)
  assert.match(text, /APPENDIX: How to apply the Apache License to your work\./)
  assert.ok(text.length > 11_000, `${text.length} characters: not the full text`)
})
