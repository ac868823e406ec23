import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  type ExpositionFamily,
  type ExpositionFormat,
  negotiateFormat,
} from '../../src/metrics/exposition/format.js'
import { ExpositionWriter, familyParts } from '../../src/metrics/exposition/writer.js'
import { family as declare, describe } from '../../src/metrics/families.js'
import { parseExposition } from '../support/exposition.js'

/** One family written by the one writer, as text in `format`. */
function renderFamily(family: ExpositionFamily, format: ExpositionFormat): string {
  const writer = new ExpositionWriter('ns', {})
  writer.writeFamily(family)
  return Buffer.concat(familyParts(writer.families(), format)).toString('utf8')
}

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

test('declared families are escaped alike, labels in declared order, histograms cumulative', () => {
  const families = describe('test', {
    bucket_usage_total_bytes: declare('gauge', ['bucket', 'range'], 'Help with \\ and\nnewline.', 'usage'),
    bucket_object_size_bytes: declare('histogram', ['bucket'], 'Sizes.', 'sizes'),
  })
  const writer = new ExpositionWriter('ns', families)
  writer.histogram(
    'bucket_object_size_bytes',
    { bucket: 'photos' },
    { upperBounds: [1024, 1048576], cumulativeCounts: [2, 3], sum: 5000000, count: 4 },
  )
  writer.set('bucket_usage_total_bytes', { range: 'r', bucket: 'a"b\\c\nd ü' }, 5)
  assert.equal(
    Buffer.concat(familyParts(writer.families(), 'text')).toString('utf8'),
    '# HELP ns_bucket_usage_total_bytes Help with \\\\ and\\nnewline.\n' +
      '# TYPE ns_bucket_usage_total_bytes gauge\n' +
      'ns_bucket_usage_total_bytes{bucket="a\\"b\\\\c\\nd ü",range="r"} 5\n' +
      '# HELP ns_bucket_object_size_bytes Sizes.\n' +
      '# TYPE ns_bucket_object_size_bytes histogram\n' +
      'ns_bucket_object_size_bytes_bucket{bucket="photos",le="1024"} 2\n' +
      'ns_bucket_object_size_bytes_bucket{bucket="photos",le="1048576"} 3\n' +
      'ns_bucket_object_size_bytes_bucket{bucket="photos",le="+Inf"} 4\n' +
      'ns_bucket_object_size_bytes_sum{bucket="photos"} 5000000\n' +
      'ns_bucket_object_size_bytes_count{bucket="photos"} 4\n',
  )
})

test('a gauge histogram: OpenMetrics gaugehistogram with _gsum/_gcount, the text format a histogram', () => {
  const families = describe('test', {
    bucket_object_size_bytes: declare('gaugehistogram', ['bucket'], 'Sizes now.', 'sizes'),
  })
  const writer = new ExpositionWriter('ns', families)
  for (const bucket of ['a', 'b']) {
    writer.histogram(
      'bucket_object_size_bytes',
      { bucket },
      { upperBounds: [1024], cumulativeCounts: [2], sum: 3000, count: 3 },
    )
  }
  const rendered = writer.families()
  const buckets = (bucket: string) =>
    `ns_bucket_object_size_bytes_bucket{bucket="${bucket}",le="1024"} 2\n` +
    `ns_bucket_object_size_bytes_bucket{bucket="${bucket}",le="+Inf"} 3\n`
  assert.equal(
    Buffer.concat(familyParts(rendered, 'text')).toString('utf8'),
    '# HELP ns_bucket_object_size_bytes Sizes now.\n# TYPE ns_bucket_object_size_bytes histogram\n' +
      ['a', 'b']
        .map(
          (bucket) =>
            `${buckets(bucket)}ns_bucket_object_size_bytes_sum{bucket="${bucket}"} 3000\n` +
            `ns_bucket_object_size_bytes_count{bucket="${bucket}"} 3\n`,
        )
        .join(''),
  )
  assert.equal(
    Buffer.concat(familyParts(rendered, 'openmetrics')).toString('utf8'),
    '# HELP ns_bucket_object_size_bytes Sizes now.\n# TYPE ns_bucket_object_size_bytes gaugehistogram\n' +
      ['a', 'b']
        .map(
          (bucket) =>
            `${buckets(bucket)}ns_bucket_object_size_bytes_gsum{bucket="${bucket}"} 3000\n` +
            `ns_bucket_object_size_bytes_gcount{bucket="${bucket}"} 3\n`,
        )
        .join(''),
  )
})

test("constant labels (METRICS_SERVER_LABEL) follow every declared family's own labels, histograms included", () => {
  const families = describe('test', {
    cluster_drives: declare('gauge', [], 'Drives.', { minio: 'cluster_drive_total' }),
    node_drive_free_bytes: declare('gauge', ['drive'], 'Free.'),
    bucket_object_size_bytes: declare('histogram', ['bucket'], 'Sizes.', 'sizes'),
    clashing: declare('gauge', ['server'], 'A family with its own server label.'),
  })
  const writer = new ExpositionWriter(
    { namespace: 'minio', constLabels: { server: 'node-1:9000' } },
    families,
  )
  writer.set('cluster_drives', {}, 2)
  writer.set('node_drive_free_bytes', { drive: '/data' }, 7)
  writer.histogram(
    'bucket_object_size_bytes',
    { bucket: 'b' },
    { upperBounds: [1024], cumulativeCounts: [1], sum: 10, count: 1 },
  )
  assert.deepEqual(
    Buffer.concat(familyParts(writer.families(), 'text'))
      .toString('utf8')
      .split('\n')
      .filter((line) => line && !line.startsWith('#')),
    [
      'minio_cluster_drive_total{server="node-1:9000"} 2',
      'minio_node_drive_free_bytes{drive="/data",server="node-1:9000"} 7',
      'minio_bucket_object_size_bytes_bucket{bucket="b",server="node-1:9000",le="1024"} 1',
      'minio_bucket_object_size_bytes_bucket{bucket="b",server="node-1:9000",le="+Inf"} 1',
      'minio_bucket_object_size_bytes_sum{bucket="b",server="node-1:9000"} 10',
      'minio_bucket_object_size_bytes_count{bucket="b",server="node-1:9000"} 1',
    ],
  )
  // A family whose own label has the constant label's name would carry it twice: refused.
  assert.throws(
    () => writer.set('clashing', { server: 'x' }, 1),
    /clashing: its label server is also a constant label/,
  )
})
