import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { loadConfig } from '../../src/config/load.js'
import { EXCLUSIONS, REQUIREMENTS } from '../../src/config/requirements.js'
import { envSchema, SECRET_VARIABLES } from '../../src/config/schema.js'
import type { PropertySchema } from '../../src/config/schema-helpers.js'
import { refusalLines } from '../support/config-refusal.js'

/**
 * Every variable of the schema, fed values of the wrong kind. The table is derived from the schema
 * itself, so a variable added later is swept without touching this file.
 */
const properties = Object.entries(envSchema.properties as Record<string, PropertySchema>)

function load(env: Record<string, string>) {
  return loadConfig(env, { dotenvPath: false })
}

function refusal(env: Record<string, string>, dotenvPath: string | false = false): readonly string[] {
  return refusalLines(() => loadConfig(env, { dotenvPath }))
}

const folder = mkdtempSync(join(tmpdir(), 'objstore-sweep-'))
after(() => rmSync(folder, { recursive: true, force: true }))
const DOTENV = join(folder, '.env')

/** A .env file holding `name=value` on its second line, quoted so that any value survives. */
function dotenvWith(name: string, value: string): string {
  const quoted =
    value.includes("'") || value.includes('\n')
      ? `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n')}"`
      : `'${value}'`
  writeFileSync(DOTENV, `# swept\n${name}=${quoted}\n`)
  return DOTENV
}

/** Strings that break most patterns: spaces, quotes, control characters, shell, traversal, non-ASCII. */
const MALFORMED_STRINGS = [
  'has space',
  'quote"d',
  "single'quote",
  'new\nline',
  'tab\there',
  'semi;colon',
  '$(reboot)',
  '`id`',
  '../../etc/passwd',
  'ünïcödé',
  '{1...}',
  '\u0007bell',
]

/** Values each kind of variable must refuse. */
function badValues(name: string, schema: PropertySchema): string[] {
  if (schema.enum) {
    const first = schema.enum[0] ?? ''
    return ['not-a-value', first.toUpperCase(), `${first}x`, '1'].filter(
      (value) => !schema.enum?.includes(value),
    )
  }
  switch (schema.type) {
    case 'integer':
    case 'number': {
      assert.ok(
        schema.minimum !== undefined || schema.exclusiveMinimum !== undefined,
        `${name} has a lower bound`,
      )
      assert.ok(schema.maximum !== undefined, `${name} has an upper bound`)
      const low = schema.exclusiveMinimum ?? (schema.minimum ?? 0) - 1
      const values = [
        'abc',
        'NaN',
        'Infinity',
        '-Infinity',
        '1e400',
        '-1e400',
        '9'.repeat(30),
        'true',
        '12abc',
        '1,5',
        // Number() reads these as 16, 1000, 5 and 8; only plain decimal is a number here.
        '0x10',
        '1e3',
        '0b101',
        '0o10',
      ]
      values.push(String(low), String((schema.maximum ?? 0) + 1), String(Number.MAX_SAFE_INTEGER * 4))
      if (schema.type === 'integer') values.push('1.5', String((schema.maximum ?? 1) - 0.5))
      // Negative numbers, where the variable has no use for them.
      if ((schema.minimum ?? schema.exclusiveMinimum ?? -1) >= 0) values.push('-1', '-0.5')
      return values
    }
    case 'boolean':
      return ['yes', 'no', 'on', '2', 'truthy']
    default: {
      if (!schema.pattern) return []
      const pattern = new RegExp(schema.pattern, 'u')
      const values = MALFORMED_STRINGS.filter((value) => !pattern.test(value))
      assert.ok(values.length > 0, `${name}: no malformed sample breaks ${schema.pattern}`)
      return values
    }
  }
}

test('the sweep covers every variable of the schema', () => {
  assert.ok(properties.length >= 19, `${properties.length} variables`)
  const swept = properties
    .filter(([name, schema]) => badValues(name, schema).length > 0)
    .map(([name]) => name)
  // Free-form strings (paths, lists) have no wrong type; their consumers check them (DRIVES'
  // ellipsis, the TLS and token files at start-up), in their own tests.
  const freeForm = properties.map(([name]) => name).filter((name) => !swept.includes(name))
  for (const name of freeForm) {
    const schema = (envSchema.properties as Record<string, PropertySchema>)[name]
    assert.equal(schema?.type, 'string', `${name} is free-form text`)
  }
})

for (const [name, schema] of properties) {
  const values = badValues(name, schema)
  if (values.length === 0) continue
  test(`${name}: ${values.length} bad values, each refused with one line naming it`, () => {
    for (const value of values) {
      const lines = refusal({ [name]: value })
      assert.equal(lines.length, 1, `${name}=${JSON.stringify(value)}: ${JSON.stringify(lines)}`)
      const line = lines[0] ?? ''
      assert.ok(line.startsWith(`${name}=`), `the line names ${name}: ${line}`)
      assert.ok(!line.includes('\n'), 'one line, even for a value with a newline')
      if (SECRET_VARIABLES.has(name)) {
        assert.ok(line.startsWith(`${name}=(value hidden): `), line)
        assert.ok(!line.includes(value), 'a secret value is never echoed')
      } else assert.ok(line.startsWith(`${name}=${JSON.stringify(value)}: expected `), line)
    }
  })

  test(`${name}: the same ${values.length} bad values from a .env file, each refused naming the file and line`, () => {
    for (const value of values) {
      const lines = refusal({}, dotenvWith(name, value))
      assert.equal(lines.length, 1, `${name}=${JSON.stringify(value)} from .env: ${JSON.stringify(lines)}`)
      const line = lines[0] ?? ''
      const shown = SECRET_VARIABLES.has(name) ? '(value hidden)' : JSON.stringify(value)
      assert.ok(line.startsWith(`${name}=${shown}: expected `), line)
      assert.ok(line.endsWith(` (${DOTENV} line 2)`), line)
      assert.ok(!line.includes('\n'), 'one line')
    }
  })
}

test('empty and blank mean unset for every variable: the default applies', () => {
  const defaults = load({})
  for (const [name] of properties) {
    for (const blank of ['', ' ', '\t', '  \n']) {
      assert.deepEqual(load({ [name]: blank }), defaults, `${name}=${JSON.stringify(blank)}`)
      const path = dotenvWith(name, blank)
      assert.deepEqual(
        loadConfig({}, { dotenvPath: path }),
        defaults,
        `${name}=${JSON.stringify(blank)} in .env`,
      )
    }
  }
})

for (const requirement of REQUIREMENTS) {
  test(`${requirement.variable} is required when ${requirement.when}, and says so when empty`, () => {
    const expected = [`${requirement.variable}: required when ${requirement.when}`]
    assert.deepEqual(refusal({ ...requirement.example }), expected)
    assert.deepEqual(refusal({ ...requirement.example, [requirement.variable]: '' }), expected)
    assert.deepEqual(refusal({ ...requirement.example, [requirement.variable]: '  ' }), expected)
  })
}

test('every mode requirement names a variable of the schema, with an example that triggers it', () => {
  for (const requirement of REQUIREMENTS) {
    assert.ok(requirement.variable in envSchema.properties, requirement.variable)
    for (const name of Object.keys(requirement.example)) assert.ok(name in envSchema.properties, name)
  }
})

for (const [first, second] of EXCLUSIONS) {
  test(`${first} and ${second} together are refused with one line`, () => {
    const lines = refusal({ [first]: 'value-one', [second]: '/value/two' })
    assert.deepEqual(lines, [`${second}: set either ${first} or ${second}, not both`])
    assert.ok(!lines[0]?.includes('value-one'), 'no value echoed')
  })
}

test('several bad variables at once: one line each, nothing else', () => {
  const lines = refusal({
    PORT: '-1',
    HOST: 'two words',
    SCRAPE_TIMEOUT_SECONDS: '1e400',
    METRICS_AUTH_TOKEN: 'has a space',
    LOG_LEVEL: 'LOUD',
    TLS_CERT_FILE: '/tls/tls.crt',
  })
  assert.deepEqual(lines.map((line) => line.split(/[=:]/)[0]).sort(), [
    'HOST',
    'LOG_LEVEL',
    'METRICS_AUTH_TOKEN',
    'PORT',
    'SCRAPE_TIMEOUT_SECONDS',
  ])
  // The TLS_KEY_FILE requirement is judged once the variables themselves are valid.
  assert.deepEqual(refusal({ TLS_CERT_FILE: '/tls/tls.crt', PORT: '9100' }), [
    'TLS_KEY_FILE: required when TLS_CERT_FILE is set',
  ])
})
