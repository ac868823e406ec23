import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ConfigError, loadConfig } from '../../src/config/load.js'
import { writeBucketInfo } from '../../src/figures/info/index.js'
import { boundedValue, SETTING_VALUE_MAX_LENGTH } from '../../src/figures/label-values.js'
import { indexFill } from '../../src/sources/rgw/index-fill.js'
import type { RgwBucketStats } from '../../src/sources/rgw/stats.js'
import { parseTagLabels, sanitiseLabelName } from '../../src/sources/s3/settings.js'

describe('BUCKET_TAG_LABELS', () => {
  it('maps tag keys to sanitised label names, or to the name given', () => {
    const { labels, problems } = parseTagLabels(' team, cost-center ,app.kubernetes.io/name=app, 9lives ')
    assert.deepEqual(problems, [])
    assert.deepEqual(
      [...labels],
      [
        ['team', 'team'],
        ['cost-center', 'cost_center'],
        ['app.kubernetes.io/name', 'app'],
        ['9lives', '_9lives'],
      ],
    )
    assert.equal(sanitiseLabelName('a b/c.d'), 'a_b_c_d')
  })

  it('refuses two keys on one label name, reserved names, too many keys', () => {
    assert.match(
      parseTagLabels('cost-center,cost.center').problems.join('\n'),
      /both map to label cost_center/,
    )
    assert.match(parseTagLabels('__name').problems.join('\n'), /expected a label name/)
    assert.match(parseTagLabels('a=1x').problems.join('\n'), /expected a label name/)
    const many = Array.from({ length: 17 }, (_, index) => `k${index}`).join(',')
    assert.match(parseTagLabels(many).problems.join('\n'), /at most 16 tag keys, got 17/)
  })

  it('ends start-up with one line naming the variable', () => {
    assert.throws(
      () => loadConfig({ BUCKET_TAG_LABELS: 'team,team=owner_team,a-b,a_b' }, { dotenvPath: false }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /BUCKET_TAG_LABELS: tag key "team" is listed twice/.test(error.message) &&
        /BUCKET_TAG_LABELS: tag keys "a-b" and "a_b" both map to label a_b/.test(error.message),
    )
  })
})

describe('bucket settings as info series', () => {
  it('cuts long values at the bound, never inside a surrogate pair', () => {
    assert.equal(boundedValue('x'.repeat(300)).length, SETTING_VALUE_MAX_LENGTH)
    const emoji = `${'x'.repeat(SETTING_VALUE_MAX_LENGTH - 1)}😀`
    assert.equal(boundedValue(emoji), 'x'.repeat(SETTING_VALUE_MAX_LENGTH - 1))
  })

  it('writes bucket_info with empty labels for what is unknown, and one row per tag', () => {
    const rows: string[] = []
    const out = {
      set: (name: string, labels: Record<string, string>, value: number) =>
        rows.push(`${name}${JSON.stringify(labels)} ${value}`),
    }
    writeBucketInfo(out, 'b', { owner: 'alice', versioning: 'Suspended', tags: { z: '1', a: '2' } })
    writeBucketInfo(out, 'only-tags', { tags: {} })
    assert.deepEqual(rows, [
      'bucket_info{"bucket":"b","owner":"alice","tenant":"","versioning":"Suspended","object_lock":"","lifecycle":""} 1',
      'bucket_tag_info{"bucket":"b","tag":"a","value":"2"} 1',
      'bucket_tag_info{"bucket":"b","tag":"z","value":"1"} 1',
    ])
  })
})

describe('rgw index fill, as radosgw-admin bucket limit check', () => {
  const stats = (shards: number | undefined, main: number, multimeta = 0): RgwBucketStats => ({
    bucket: 'b',
    tenant: '',
    owner: 'o',
    quota: undefined,
    createdMs: undefined,
    shards,
    usage: new Map([
      ['rgw.main', { sizeBytes: 0, actualSizeBytes: 0, utilizedBytes: 0, objects: main }],
      ['rgw.multimeta', { sizeBytes: 0, actualSizeBytes: 0, utilizedBytes: 0, objects: multimeta }],
    ]),
  })
  const limits = { maxObjectsPerShard: 100, warningPercent: 90 }
  it('sums every category, divides rounding down, OK below the warning, WARN up to 100 %, OVER past it', () => {
    assert.deepEqual(indexFill(stats(10, 890, 9), limits), {
      shards: 10,
      objectsPerShard: 89,
      fillRatio: 0.89,
      fillStatus: 'OK',
    })
    assert.equal(indexFill(stats(10, 900), limits)?.fillStatus, 'WARN')
    assert.equal(indexFill(stats(10, 1009), limits)?.fillStatus, 'WARN')
    assert.equal(indexFill(stats(10, 1010), limits)?.fillStatus, 'OVER')
    // No shards reported (indexless): no figures; 0 shards counts the whole bucket as one.
    assert.equal(indexFill(stats(undefined, 5), limits), undefined)
    assert.equal(indexFill(stats(0, 150), limits)?.fillStatus, 'OVER')
  })
})
