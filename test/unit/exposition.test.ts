import assert from 'node:assert/strict'
import { test } from 'node:test'
import { negotiateFormat, renderFamily } from '../../src/metrics/exposition/format.js'
import { parseExposition } from '../support/exposition.js'

test('label values and help are escaped as the text format requires', () => {
  const text = renderFamily(
    {
      name: 'ns_bucket_usage_total_bytes',
      help: 'Help with \\ and\nnewline.',
      type: 'gauge',
      samples: [{ name: 'ns_bucket_usage_total_bytes', labels: [['bucket', 'a"b\\c\nd ü']], value: 5 }],
    },
    'text',
  )
  assert.equal(
    text,
    '# HELP ns_bucket_usage_total_bytes Help with \\\\ and\\nnewline.\n' +
      '# TYPE ns_bucket_usage_total_bytes gauge\n' +
      'ns_bucket_usage_total_bytes{bucket="a\\"b\\\\c\\nd ü"} 5\n',
  )
  // And the escaping round-trips.
  assert.equal(parseExposition(text).samples[0]?.labels.bucket, 'a"b\\c\nd ü')
})

test('special values are written as Prometheus spells them', () => {
  const text = renderFamily(
    {
      name: 'x',
      help: 'h',
      type: 'gauge',
      samples: [
        { name: 'x', labels: [['k', 'nan']], value: Number.NaN },
        { name: 'x', labels: [['k', 'inf']], value: Number.POSITIVE_INFINITY },
        { name: 'x', labels: [['k', 'ninf']], value: Number.NEGATIVE_INFINITY },
      ],
    },
    'text',
  )
  assert.match(text, /x\{k="nan"\} NaN\nx\{k="inf"\} \+Inf\nx\{k="ninf"\} -Inf\n/)
})

test('OpenMetrics names a counter family without _total and keeps it on the sample', () => {
  const family = {
    name: 'ns_logger_http_sent_total',
    help: 'h',
    type: 'counter' as const,
    samples: [{ name: 'ns_logger_http_sent_total', labels: [], value: 3 }],
  }
  assert.match(
    renderFamily(family, 'openmetrics'),
    /^# HELP ns_logger_http_sent h\n# TYPE ns_logger_http_sent counter\nns_logger_http_sent_total 3\n$/,
  )
  assert.match(
    renderFamily(family, 'text'),
    /^# HELP ns_logger_http_sent_total h\n# TYPE ns_logger_http_sent_total counter\n/,
  )
})

test('content negotiation follows q-values', () => {
  const prometheus =
    'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'
  assert.equal(negotiateFormat(prometheus), 'openmetrics')
  assert.equal(negotiateFormat(undefined), 'text')
  assert.equal(negotiateFormat('*/*'), 'text')
  assert.equal(negotiateFormat('text/plain;version=0.0.4'), 'text')
  assert.equal(negotiateFormat('application/openmetrics-text'), 'openmetrics')
  assert.equal(negotiateFormat('application/openmetrics-text;q=0.2,text/plain;q=0.9'), 'text')
  // Only OpenMetrics 1.x is served; an unknown version falls back to text.
  assert.equal(negotiateFormat('application/openmetrics-text;version=2.0.0'), 'text')
})
