import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseDotenv } from '../../src/config/dotenv.js'

function values(text: string): Record<string, string> {
  const parsed = parseDotenv(text)
  assert.deepEqual(parsed.problems, [], `no problems in ${JSON.stringify(text)}`)
  return Object.fromEntries([...parsed.entries].map(([name, entry]) => [name, entry.value]))
}

test('a UTF-8 byte order mark does not hide the first variable', () => {
  assert.deepEqual(values('\uFEFFPORT=9100\nHOST=127.0.0.1\n'), { PORT: '9100', HOST: '127.0.0.1' })
})

test('CRLF line ends, export, blank lines and comments', () => {
  const text = '# settings\r\nexport PORT=9100\r\n\r\n   # indented comment\r\nLOG_MODE = quiet \r\n'
  assert.deepEqual(values(text), { PORT: '9100', LOG_MODE: 'quiet' })
})

test('unquoted values lose surrounding whitespace and a comment after whitespace', () => {
  assert.deepEqual(values('DATA_DIR=/srv/data   \nDRIVES=  /a,/b # two drives\n'), {
    DATA_DIR: '/srv/data',
    DRIVES: '/a,/b',
  })
})

test('a # inside an unquoted value is kept: a token is not cut short', () => {
  assert.deepEqual(values('METRICS_AUTH_TOKEN=abc#def\n'), { METRICS_AUTH_TOKEN: 'abc#def' })
})

test('quotes: single literal, double with escapes, comment after the closing quote', () => {
  const text = `A='a\\nb # not a comment'\nB="x\\ty\\"z\\\\" # comment\nC=""\nD="  padded  "\n`
  assert.deepEqual(values(text), { A: 'a\\nb # not a comment', B: 'x\ty"z\\', C: '', D: '  padded  ' })
})

test('line numbers are kept for error lines, and the last assignment wins', () => {
  const parsed = parseDotenv('PORT=1\n\n# c\nPORT=2\nHOST=h\n')
  assert.deepEqual(parsed.entries.get('PORT'), { value: '2', line: 4 })
  assert.deepEqual(parsed.entries.get('HOST'), { value: 'h', line: 5 })
})

test('malformed lines are problems naming the line, never showing its text', () => {
  const secret = 's3cr3t-value'
  const parsed = parseDotenv(
    `PORT=9100\n${secret}\nMETRICS_AUTH_TOKEN="${secret}\nHOST=127.0.0.1\n1BAD=x\nLOG_MODE="json" trailing\n`,
  )
  assert.deepEqual(parsed.problems, [
    'line 2: expected NAME=value (a name of letters, digits and _)',
    'line 3: METRICS_AUTH_TOKEN: expected a quoted value closed on the same line, then nothing but a comment',
    'line 5: expected NAME=value (a name of letters, digits and _)',
    'line 6: LOG_MODE: expected a quoted value closed on the same line, then nothing but a comment',
  ])
  for (const problem of parsed.problems) assert.ok(!problem.includes(secret), problem)
  // An unclosed quote does not swallow the lines after it.
  assert.deepEqual([...parsed.entries.keys()], ['PORT', 'HOST'])
})
