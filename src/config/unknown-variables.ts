/** A variable the exporter does not read, named as if it were meant for it. */
export interface UnknownVariable {
  readonly name: string
  /** The known name it most resembles. */
  readonly closest: string
  /** Ignoring it could leave the server less protected than intended: start-up stops instead. */
  readonly security: boolean
}

/**
 * Names other software reads from the same environment: the AWS SDK (`AWS_*`), Node and npm,
 * proxies, OpenSSL, Kubernetes, and Kubernetes service links (`<SERVICE>_SERVICE_HOST`, `<SERVICE>_PORT_9786_TCP`...,
 * present for every service of the namespace, so a service called `metrics` gives METRICS_PORT).
 */
const FOREIGN = [
  /^(AWS|NODE|NPM|KUBERNETES)_/,
  /^(HTTPS?|NO|ALL|FTP)_PROXY$/,
  // OpenSSL's (SSL_CERT_FILE is two edits from TLS_CERT_FILE).
  /^SSL_/,
  /_SERVICE_(HOST|PORT)(_|$)/,
  /_PORT(_\d+_(TCP|UDP|SCTP)(_(PROTO|PORT|ADDR))?)?$/,
]

/** Words that make a mistyped name a security setting even when its closest name is not one. */
const SECURITY_WORDS = new Set([
  'AUTH',
  'TOKEN',
  'BEARER',
  'TLS',
  'SSL',
  'CERT',
  'KEY',
  'CA',
  'SECRET',
  'PASSWORD',
])

/**
 * The names among `names` that look meant for the exporter but are not among `known`: one that
 * starts with the first word of a known multi-word name (METRICS_, TLS_, S3_...) or is within a
 * small edit distance of a known name (BUCKET_SOURCE), compared without regard to case. Others
 * (PATH, HOME, AWS_REGION, npm_config_*) are none of its business and never reported.
 * `guarded` are the known names whose absence weakens security (token, TLS, secrets).
 */
export function unknownVariables(
  names: Iterable<string>,
  known: readonly string[],
  guarded: ReadonlySet<string>,
): UnknownVariable[] {
  const knownSet = new Set(known)
  const stems = new Set(known.filter((name) => name.includes('_')).map((name) => name.split('_')[0]))
  const found: UnknownVariable[] = []
  for (const name of names) {
    if (knownSet.has(name)) continue
    const upper = name.toUpperCase()
    if (FOREIGN.some((pattern) => pattern.test(upper))) continue
    const stemKnown = stems.has(upper.split('_')[0])
    // A near miss is at most 2 edits from some known name: most names (PATH, HOME...) are not,
    // and ranking every known name for them cost ~90 ms of a start-up.
    if (!stemKnown && !known.some((candidate) => withinTwoEdits(upper, candidate))) continue
    const closest = closestName(upper, known)
    const nearMiss = distance(upper, closest) <= (closest.length <= 6 ? 1 : 2)
    if (!nearMiss && !stemKnown) continue
    const security = guarded.has(closest) || upper.split('_').some((word) => SECURITY_WORDS.has(word))
    found.push({ name, closest, security })
  }
  return found
}

/**
 * The known name sharing most words with `name` (BUCKET matching BUCKETS: words one edit apart
 * count), then the fewest edits: METRICS_TOKEN is closer to METRICS_AUTH_TOKEN than to
 * METRICS_PATH, although both are five edits away.
 */
export function closestName(name: string, known: readonly string[]): string {
  const words = name.split('_')
  const ranked = known.map((candidate) => {
    const candidateWords = candidate.split('_')
    const shared = words.filter((word) => candidateWords.some((other) => sameWord(word, other))).length
    return { candidate, shared, edits: distance(name, candidate) }
  })
  ranked.sort((a, b) => b.shared - a.shared || a.edits - b.edits || compareNames(a.candidate, b.candidate))
  return ranked[0]?.candidate ?? ''
}

/** Names of capitals, digits and underscores: the exporter's variables. */
const PLAIN_NAME = /^[A-Z0-9_]*$/

/**
 * localeCompare's order for the exporter's names, without it: the first localeCompare of a
 * process loads ICU's collation data (~8 ms of CPU and 2.7 MB of resident memory, measured). In
 * the root collation `_` sorts before digits and digits before letters, and for these characters
 * it compares character by character, a prefix first. Any other name goes to localeCompare.
 */
export function compareNames(a: string, b: string): number {
  if (!PLAIN_NAME.test(a) || !PLAIN_NAME.test(b)) return a.localeCompare(b)
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    const difference = nameRank(a.charCodeAt(index)) - nameRank(b.charCodeAt(index))
    if (difference !== 0) return Math.sign(difference)
  }
  return Math.sign(a.length - b.length)
}

/** `_` 0, digits 1-10, capitals 11-36. */
function nameRank(code: number): number {
  if (code === 95) return 0
  return code <= 57 ? code - 47 : code - 54
}

function sameWord(a: string, b: string): boolean {
  return a === b || (Math.min(a.length, b.length) >= 4 && distance(a, b) <= 1)
}

/** distance(a, b) <= 2, without computing it when the lengths alone say no. */
function withinTwoEdits(a: string, b: string): boolean {
  return Math.abs(a.length - b.length) <= 2 && distance(a, b) <= 2
}

/** Edit distance counting a swap of two neighbouring letters as one edit (PROT is one from PORT). */
export function distance(a: string, b: string): number {
  // Three rows of the table: the one before last (for swaps), the last, and the one being filled.
  const width = b.length + 1
  let before = new Uint16Array(width)
  let last = Uint16Array.from({ length: width }, (_, j) => j)
  let row = new Uint16Array(width)
  for (let i = 1; i <= a.length; i++) {
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min((last[j] as number) + 1, (row[j - 1] as number) + 1, (last[j - 1] as number) + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, (before[j - 2] as number) + 1)
      row[j] = best
    }
    ;[before, last, row] = [last, row, before]
  }
  return last[b.length] as number
}
