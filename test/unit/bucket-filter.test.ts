import assert from 'node:assert/strict'
import { test } from 'node:test'
import { compileGlob, parseGlobList, parseShard } from '../../src/config/bucket-selection.js'
import { ConfigError, loadConfig } from '../../src/config/load.js'
import { createBucketFilter, shardHash, shardOf } from '../../src/scanning/bucket-filter.js'

/** The lines of the ConfigError that `env` must cause (loadConfig is the start-up check). */
function startupErrorLines(env: Record<string, string>): readonly string[] {
  let lines: readonly string[] = []
  assert.throws(
    () => loadConfig(env, { dotenvPath: false }),
    (error: unknown) => {
      lines = error instanceof ConfigError ? error.lines : []
      return error instanceof ConfigError
    },
  )
  return lines
}

test('globs: *, ?, classes, ranges, negation and escapes match whole bucket names', () => {
  const cases: Array<[string, string[], string[]]> = [
    ['logs-*', ['logs-', 'logs-2026', 'logs-a-b'], ['xlogs-a', 'logs', 'LOGS-a']],
    ['data-?', ['data-1', 'data-x'], ['data-', 'data-12']],
    ['[ab]ackup', ['backup', 'aackup'], ['cackup']],
    ['tenant-[0-3]', ['tenant-0', 'tenant-3'], ['tenant-4', 'tenant-a']],
    ['[!t]*', ['backup', 'a'], ['tenant-1']],
    ['[^t]*', ['backup'], ['tenant-1']],
    ['a\\*b', ['a*b'], ['axb', 'a\\*b']],
    ['v1.2', ['v1.2'], ['v1x2']],
  ]
  for (const [pattern, matching, other] of cases) {
    const glob = compileGlob(pattern)
    for (const name of matching) assert.ok(glob.test(name), `${pattern} should match ${name}`)
    for (const name of other) assert.ok(!glob.test(name), `${pattern} should not match ${name}`)
  }
  assert.equal(parseGlobList(' logs-* , ,data-?').length, 2, 'blank entries ignored, spaces trimmed')
})

test('exclude wins over include; no include means every bucket', () => {
  const filter = createBucketFilter({
    include: parseGlobList('logs-*,data-?'),
    exclude: parseGlobList('logs-old*'),
  })
  const names = ['logs-2026', 'logs-old-2019', 'data-1', 'data-10', 'media']
  assert.deepEqual(names.filter(filter), ['logs-2026', 'data-1'])
  const excludeOnly = createBucketFilter({ include: [], exclude: parseGlobList('tmp-*') })
  assert.deepEqual(['a', 'tmp-1', 'b'].filter(excludeOnly), ['a', 'b'])
})

test('the shard hash is FNV-1a 32 over UTF-8 (published test vectors), so operators can compute it', () => {
  // Vectors from the FNV reference (draft-eastlake-fnv, test suite): "", "a", "foobar".
  assert.equal(shardHash(''), 0x811c9dc5)
  assert.equal(shardHash('a'), 0xe40c292c)
  assert.equal(shardHash('foobar'), 0xbf9cf968)
  assert.equal(shardOf('foobar', 3), 0xbf9cf968 % 3)
})

test('three shards cover every bucket exactly once, each taking a fair share', () => {
  const names = Array.from({ length: 3000 }, (_, index) => `bucket-${index}`)
  const shards = [0, 1, 2].map((index) =>
    names.filter(createBucketFilter({ include: [], exclude: [], shard: { index, count: 3 } })),
  )
  const union = shards.flat()
  assert.equal(union.length, names.length, 'no bucket in two shards')
  assert.deepEqual(new Set(union), new Set(names), 'no bucket in none')
  for (const shard of shards)
    assert.ok(shard.length > 800 && shard.length < 1200, `uneven shard: ${shard.length}`)
})

test('SHARD parses i/n with 0 <= i < n', () => {
  assert.equal(parseShard(''), undefined)
  assert.deepEqual(parseShard('0/1'), { index: 0, count: 1 })
  assert.deepEqual(parseShard('2/3'), { index: 2, count: 3 })
  for (const bad of ['3/3', '1/0', '-1/3', 'a/b', '1', '1/3/4', '1.5/3']) {
    assert.throws(() => parseShard(bad), `${bad} should be refused`)
  }
})

test('the configuration holds the selection parsed: a list, compiled globs, {index, count}', () => {
  const config = loadConfig(
    {
      BUCKETS: ' logs-a, ,data-1 ',
      BUCKETS_INCLUDE: 'logs-*,data-?',
      BUCKETS_EXCLUDE: 'logs-old*',
      SHARD: '1/3',
    },
    { dotenvPath: false },
  )
  assert.deepEqual(config.BUCKETS, ['logs-a', 'data-1'])
  assert.deepEqual(
    config.BUCKETS_INCLUDE.map((glob) => glob.pattern),
    ['logs-*', 'data-?'],
  )
  assert.deepEqual(
    config.BUCKETS_EXCLUDE.map((glob) => glob.test('logs-old-1')),
    [true],
  )
  assert.deepEqual(config.SHARD, { index: 1, count: 3 })
  const defaults = loadConfig({}, { dotenvPath: false })
  assert.deepEqual(
    [defaults.BUCKETS, defaults.BUCKETS_INCLUDE, defaults.BUCKETS_EXCLUDE, defaults.SHARD],
    [[], [], [], undefined],
  )
  assert.ok(Object.isFrozen(config.BUCKETS) && Object.isFrozen(config.BUCKETS_INCLUDE))
})

test('a malformed SHARD refuses start-up with one line naming it', () => {
  assert.deepEqual(startupErrorLines({ SHARD: '3/3' }), [
    'SHARD="3/3": expected i/n with 0 <= i < n, for example 0/3',
  ])
  assert.deepEqual(startupErrorLines({ SHARD: 'half' }), [
    'SHARD="half": expected i/n with 0 <= i < n, for example 0/3',
  ])
})

test('malformed globs refuse start-up with one line per variable, naming it', () => {
  const lines = startupErrorLines({ BUCKETS_INCLUDE: 'logs-*,data-[', BUCKETS_EXCLUDE: 'tmp-[z-a]' })
  assert.equal(lines.length, 2)
  assert.match(lines[0] ?? '', /^BUCKETS_INCLUDE="logs-\*,data-\[": .*unterminated \[ in "data-\["/)
  assert.match(lines[1] ?? '', /^BUCKETS_EXCLUDE="tmp-\[z-a\]": .*range z-a runs backwards/)
  // As in the shell, a ] right after [ is a member, so "a[]" is unterminated; "[!]" is an empty class.
  assert.match(startupErrorLines({ BUCKETS_EXCLUDE: 'a[]' })[0] ?? '', /^BUCKETS_EXCLUDE=.*unterminated \[/)
  assert.match(startupErrorLines({ BUCKETS_EXCLUDE: 'a[!]' })[0] ?? '', /^BUCKETS_EXCLUDE=.*empty \[\] class/)
  assert.match(startupErrorLines({ BUCKETS_INCLUDE: 'trailing\\' })[0] ?? '', /^BUCKETS_INCLUDE=.*lone \\/)
})

test('glob lists are bounded: 1,000 patterns of 1,024 characters; past that, one line naming the variable', () => {
  const long = `logs-*,${'a'.repeat(40_000)}`
  const [line, ...more] = startupErrorLines({ BUCKETS_INCLUDE: long })
  assert.deepEqual(more, [])
  assert.match(
    line ?? '',
    /^BUCKETS_INCLUDE=.*: expected comma-separated glob patterns: pattern 2: a pattern of 40000 characters \(at most 1024\)$/,
  )
  const many = Array.from({ length: 1001 }, (_, index) => `b-${index}`).join(',')
  assert.match(
    startupErrorLines({ BUCKETS_EXCLUDE: many })[0] ?? '',
    /^BUCKETS_EXCLUDE=.*: 1001 patterns \(at most 1000\)$/,
  )
  const bounds = loadConfig(
    { BUCKETS_INCLUDE: Array.from({ length: 1000 }, () => 'a'.repeat(1024)).join(',') },
    { dotenvPath: false },
  )
  assert.equal(bounds.BUCKETS_INCLUDE.length, 1000)
})

test('S3: keys both or neither, endpoint a URL, and no secret in an error line', () => {
  assert.deepEqual(startupErrorLines({ S3_ACCESS_KEY_ID: 'AKIASECRETVALUE' }), [
    'S3_SECRET_ACCESS_KEY: required when S3_ACCESS_KEY_ID is set',
  ])
  assert.deepEqual(startupErrorLines({ S3_SECRET_ACCESS_KEY: 'SECRETVALUE' }), [
    'S3_ACCESS_KEY_ID: required when S3_SECRET_ACCESS_KEY is set',
  ])
  assert.deepEqual(startupErrorLines({ S3_ENDPOINT: 'minio:9000' }), [
    'S3_ENDPOINT="minio:9000": expected an http:// or https:// URL',
  ])
  assert.deepEqual(startupErrorLines({ S3_ENDPOINT: 'ftp://key:SECRETVALUE@minio:9000' }), [
    'S3_ENDPOINT="ftp://[redacted]@minio:9000/": expected an http:// or https:// URL',
  ])
  const config = loadConfig(
    { BUCKETS_SOURCE: 's3', S3_ACCESS_KEY_ID: 'id', S3_SECRET_ACCESS_KEY: 'secret', SCAN_VERSIONS: 'true' },
    { dotenvPath: false },
  )
  assert.equal(config.BUCKETS_SOURCE, 's3')
  assert.equal(config.SCAN_VERSIONS, true)
  assert.equal(config.SCAN_INTERVAL_SECONDS, 300)
  assert.deepEqual(startupErrorLines({ BUCKETS_SOURCE: 'ftp' }), [
    'BUCKETS_SOURCE="ftp": expected one of fs, s3, rgw',
  ])
})
