/**
 * Import rules of src/ (issue 12), checked by `npm run check:deps` in .ci/run.
 *
 * The layers, lowest first; a module imports its own layer and those below it, never above:
 *
 *   version.ts, worker-threads.ts,   leaves: import nothing of src
 *   event-loop-slices.ts
 *   config/                          parsed settings: imports nothing of the other layers
 *                                    (but src/logging/settings.ts, the log targets' declarations)
 *   logging/, security/              over config only (and the leaves); not each other
 *   events/                          change events (POST /events): reading S3 event records and
 *                                    SNS messages, over config only; the scanner is told of
 *                                    changes through a listener the composition root wires
 *   figures/                         the per-bucket figures, a folder each: config, and the
 *                                    exposition's family declarations (metrics/families.ts)
 *   record/                          a bucket's record and the fold of a listing into it
 *   sources/                         where figures come from (fs, s3, rgw): the record
 *   snapshot/                        the immutable snapshot and the state file: sources' types
 *   scanning/                        the scheduling of scan rounds: snapshot, sources
 *   metrics/                         exposition (format, writer, block, gzip, body): the leaves
 *   collectors/                      families from snapshots and probes: snapshot, metrics, logging
 *   exposition/                      the usage families rendered once per snapshot (the render
 *                                    worker, its cache, the series budget): collectors' writers,
 *                                    metrics; the usage collector is handed it, never imports it
 *   server/                          routes and pages: anything but the composition root
 *   app.ts, exporter.ts, main.ts,    the composition root: imported by nothing in a folder
 *   healthcheck.ts                   (but cli/)
 *   cli/                             the command line (serve, check-config, scan): over the
 *                                    root; imported by main.ts only
 *
 * The data flow, config -> sources -> record -> snapshot -> scanning -> collectors -> exposition ->
 * server, is
 * what these arrows allow (a source imports the record's fold, so record/ sits below sources/);
 * metrics/ (the format, writer, blocks and gzip) sits below collectors/ because collectors write
 * into metric sets, and it must not know who fills them; exposition/ sits above collectors/
 * because it renders their families with their writers.
 *
 * Violations known when the rules were written are listed in
 * .dependency-cruiser-known-violations.json and tolerated (`--ignore-known`) until they are fixed;
 * any other one fails. When one is fixed, regenerate the list (`npm run check:deps:baseline`) so
 * it cannot come back unnoticed; never add to it by hand.
 */

/** Everything of src outside `folder`, but the leaves. */
const OTHER_LAYERS = '^src/(?!(version|worker-threads|event-loop-slices)\\.ts$)'
const ROOT = '^src/((app|exporter|main|healthcheck)\\.ts$|cli/)'
/**
 * The usage sources' declarations: the source list, and each source folder's entry (index.ts) and
 * variables (settings.ts). The config schema is derived from them, so config may import them; in
 * turn they import only config, one another and their own source's implementation lazily.
 */
const SOURCE_DECLARATIONS = '^src/sources/(list|definition|[^/]+/(index|settings))\\.ts$'

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: the modules cannot be understood, tested or split one at a time.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'leaves-import-nothing',
      severity: 'error',
      comment:
        'version.ts, worker-threads.ts and event-loop-slices.ts are used by every layer, so they import none.',
      from: { path: '^src/(version|worker-threads|event-loop-slices)\\.ts$' },
      to: { path: '^src/' },
    },
    {
      name: 'config-imports-no-other-layer',
      severity: 'error',
      comment:
        'config holds parsed values; everything reads it, it reads nothing of them. Exceptions: the declarations its schema is assembled from, src/logging/settings.ts (the log targets own their variables) and the usage sources\' declarations (issue 12).',
      from: { path: '^src/config/' },
      to: { path: OTHER_LAYERS, pathNot: ['^src/config/', '^src/logging/settings\\.ts$', SOURCE_DECLARATIONS] },
    },
    {
      name: 'source-declarations-stay-light',
      severity: 'error',
      comment:
        'The config loads the sources\' declarations: they import config and one another, and a source\'s implementation (the AWS SDK, undici) only by a dynamic import when it is chosen.',
      from: { path: SOURCE_DECLARATIONS },
      to: {
        path: '^src/',
        pathNot: ['^src/config/', SOURCE_DECLARATIONS, '^src/sources/types\\.ts$'],
        dependencyTypesNot: ['dynamic-import'],
      },
    },
    {
      name: 'source-declarations-no-packages',
      severity: 'error',
      comment: 'A source declaration imports no package but the schema builder (and types).',
      from: { path: SOURCE_DECLARATIONS },
      to: { dependencyTypes: ['npm'], pathNot: 'node_modules/@sinclair/typebox/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'logging-security-over-config-only',
      severity: 'error',
      comment: 'Logging and the server security parts are built from config alone.',
      from: { path: '^src/(logging|security)/' },
      to: { path: OTHER_LAYERS, pathNot: ['^src/config/', '^src/$1/'] },
    },
    {
      name: 'events-over-config-only',
      severity: 'error',
      comment:
        'Change events are read into (bucket, key) changes for a listener; what the changes do (dirty ranges, an early round) is wired by the composition root.',
      from: { path: '^src/events/' },
      to: { path: OTHER_LAYERS, pathNot: ['^src/events/', '^src/config/'] },
    },
    {
      name: 'figures-below-scanner',
      severity: 'error',
      comment:
        'A figure declares its record part, fold step and families; the record folds listings with them and the collectors write them, never the other way.',
      from: { path: '^src/figures/' },
      to: { path: OTHER_LAYERS, pathNot: ['^src/figures/', '^src/config/', '^src/metrics/(families|metric-set)\\.ts$'] },
    },
    {
      name: 'record-below-sources',
      severity: 'error',
      comment: 'The record and its fold are what sources fill; they know no source, snapshot or scan.',
      from: { path: '^src/record/' },
      to: { path: OTHER_LAYERS, pathNot: ['^src/record/', '^src/figures/', '^src/config/'] },
    },
    {
      name: 'sources-below-snapshot',
      severity: 'error',
      comment: 'A source measures a bucket into a record; snapshots and the schedule are above it.',
      from: { path: '^src/sources/' },
      to: { path: OTHER_LAYERS, pathNot: ['^src/sources/', '^src/record/', '^src/figures/', '^src/config/'] },
    },
    {
      name: 'snapshot-below-scanning',
      severity: 'error',
      comment: 'A snapshot and its state file hold what rounds measured; they do not schedule rounds.',
      from: { path: '^src/snapshot/' },
      to: {
        path: OTHER_LAYERS,
        pathNot: ['^src/snapshot/', '^src/sources/', '^src/record/', '^src/figures/', '^src/config/'],
      },
    },
    {
      name: 'scanning-below-collectors',
      severity: 'error',
      comment: 'Sources and the scanner make snapshots; they know nothing of who exposes them.',
      from: { path: '^src/scanning/' },
      to: {
        path: OTHER_LAYERS,
        pathNot: ['^src/(scanning|snapshot|sources|record|figures|config)/'],
      },
    },
    {
      name: 'metrics-below-collectors',
      severity: 'error',
      comment: 'The exposition renders families and samples; it never imports who produces them.',
      from: { path: '^src/metrics/' },
      to: { path: OTHER_LAYERS, pathNot: '^src/metrics/' },
    },
    {
      name: 'collectors-below-server',
      severity: 'error',
      comment: 'Collectors read snapshots and probes into metric sets; serving them is above.',
      from: { path: '^src/collectors/' },
      to: {
        path: OTHER_LAYERS,
        pathNot: ['^src/(collectors|figures|record|sources|snapshot|scanning|metrics|logging|events|config)/'],
      },
    },
    {
      name: 'exposition-below-server',
      severity: 'error',
      comment:
        'The usage rendering, its cache and the series budget render what collectors declare; routes and the root serve it.',
      from: { path: '^src/exposition/' },
      to: {
        path: OTHER_LAYERS,
        pathNot: ['^src/(exposition|collectors|figures|record|sources|snapshot|scanning|metrics|logging|config)/'],
      },
    },
    {
      name: 'server-below-the-root',
      severity: 'error',
      comment: 'Routes and pages are given what they show; only the composition root assembles.',
      from: { path: '^src/server/' },
      to: { path: ROOT },
    },
    {
      name: 'cli-only-from-main',
      severity: 'error',
      comment: 'The command line is the top: main.ts runs it; nothing else in src imports it.',
      from: { path: '^src/', pathNot: ['^src/main\\.ts$', '^src/cli/'] },
      to: { path: '^src/cli/' },
    },
    {
      name: 'src-not-to-tests-or-tools',
      severity: 'error',
      comment: 'Shipped code never imports tests, benches or scripts.',
      from: { path: '^src/' },
      to: { path: '^(test|bench|scripts)/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing.',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'src-not-to-dev-dependencies',
      severity: 'error',
      comment: 'The image installs production dependencies only.',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are dependencies of the design too (the known usage circle is one).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
}
