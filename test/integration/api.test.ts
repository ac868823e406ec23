import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import SwaggerParser from '@apidevtools/swagger-parser'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsPlugin from 'ajv-formats'
import { type RunningExporter, startExporter } from '../support/exporter.js'
import { sampleValue } from '../support/exposition.js'
import { freePort } from '../support/process.js'

/**
 * The JSON API on a real exporter over real HTTP (fs source on a temporary folder): the OpenAPI
 * document validates, every route's answer and every schema example validate against the
 * document's response schemas, sorting and filtering, the figures /metrics serves, and the bearer
 * token /metrics requires.
 */

const TOKEN = 'tok-api-4c1d7e9a2b6f'
const auth = { authorization: `Bearer ${TOKEN}` }
// ajv-formats is CommonJS: under ESM its default export arrives as `default`.
const addFormats = (addFormatsPlugin as unknown as { default: (ajv: Ajv2020) => Ajv2020 }).default

interface Bucket {
  name: string
  bytes: number | null
  objects: number | null
}
interface BucketsAnswer {
  matched: number
  totals: { buckets: number; bytes: number; objects: number }
  buckets: Bucket[]
}

type Schema = Record<string, unknown> & { examples?: unknown[] }
/** A response's media type: @fastify/swagger moves a schema's single example up to `example`. */
interface Media {
  schema: Schema
  example?: unknown
  examples?: Record<string, { value: unknown }>
}
interface OpenApiDocument {
  openapi: string
  paths: Record<string, { get: { responses: Record<string, { content: Record<string, Media> }> } }>
}

function examplesOf(media: Media): unknown[] {
  return [
    ...(media.schema.examples ?? []),
    ...(media.example === undefined ? [] : [media.example]),
    ...Object.values(media.examples ?? {}).map((example) => example.value),
  ]
}

describe('JSON API', () => {
  let folder: string
  let running: RunningExporter
  let get: (path: string, headers?: Record<string, string>) => Promise<Response>

  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'objstore-api-'))
    const data = join(folder, 'data')
    const files: Record<string, number[]> = {
      alpha: [100, 200, 300],
      beta: [5000],
      'gamma-logs': [10, 10, 10, 10, 10],
    }
    for (const [bucket, sizes] of Object.entries(files)) {
      await mkdir(join(data, bucket), { recursive: true })
      for (const [index, size] of sizes.entries())
        await writeFile(join(data, bucket, `o${index}`), Buffer.alloc(size))
    }
    running = await startExporter({
      DATA_DIR: data,
      DRIVES: data,
      METRICS_AUTH_TOKEN: TOKEN,
      SCAN_INTERVAL_SECONDS: '600',
    })
    get = (path, headers = auth) => fetch(`${running.baseUrl}${path}`, { headers })
  })
  after(async () => {
    await running?.close()
    await rm(folder, { recursive: true, force: true })
  })

  const buckets = async (query: string): Promise<BucketsAnswer> => {
    const response = await get(`/api/v1/buckets${query}`)
    assert.equal(response.status, 200, await response.clone().text())
    return (await response.json()) as BucketsAnswer
  }

  it('serves an OpenAPI document that validates and describes the three routes', async () => {
    const response = await get('/api/openapi.json')
    assert.equal(response.status, 200)
    const document = (await response.json()) as OpenApiDocument
    await SwaggerParser.validate(structuredClone(document) as never)
    assert.equal(document.openapi, '3.1.0')
    assert.deepEqual(Object.keys(document.paths).sort(), [
      '/api/v1/buckets',
      '/api/v1/drives',
      '/api/v1/status',
    ])
  })

  it('every route answers what its schema says, and every schema example fits it', async () => {
    await running.scrape(auth) // the drives' state comes from a scrape
    const document = (await (await get('/api/openapi.json')).json()) as OpenApiDocument
    const ajv = new Ajv2020({ strict: true, allErrors: true })
    addFormats(ajv)
    let checked = 0
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [code, response] of Object.entries(item.get.responses)) {
        const media = response.content['application/json']
        assert.ok(media?.schema, `${path} ${code}: a JSON schema`)
        const validate = ajv.compile(media.schema)
        const examples = examplesOf(media)
        assert.ok(examples.length > 0, `${path} ${code}: an example in the schema`)
        for (const example of examples) {
          assert.ok(validate(example), `${path} ${code} example: ${ajv.errorsText(validate.errors)}`)
          checked++
        }
        if (code !== '200') continue
        const answer = await (await get(path)).json()
        assert.ok(
          validate(answer),
          `${path} answer: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(answer)}`,
        )
      }
    }
    assert.ok(checked >= 5, `${checked} examples checked`)
  })

  it('gives the figures /metrics serves, from the same snapshot', async () => {
    const scrape = await running.scrape(auth)
    const answer = await buckets('')
    assert.deepEqual(
      answer.buckets.map((bucket) => bucket.name),
      ['alpha', 'beta', 'gamma-logs'],
    )
    for (const bucket of answer.buckets) {
      assert.equal(
        bucket.bytes,
        sampleValue(scrape, 'objstore_bucket_usage_total_bytes', { bucket: bucket.name }),
      )
      assert.equal(
        bucket.objects,
        sampleValue(scrape, 'objstore_bucket_usage_objects', { bucket: bucket.name }),
      )
    }
    assert.deepEqual(answer.totals, { buckets: 3, bytes: 5650, objects: 9 })
  })

  it('sorts, filters and limits', async () => {
    const names = (answer: BucketsAnswer) => answer.buckets.map((bucket) => bucket.name)
    assert.deepEqual(names(await buckets('?sort=bytes')), ['beta', 'alpha', 'gamma-logs'])
    assert.deepEqual(names(await buckets('?sort=bytes&order=asc')), ['gamma-logs', 'alpha', 'beta'])
    assert.deepEqual(names(await buckets('?sort=objects')), ['gamma-logs', 'alpha', 'beta'])
    assert.deepEqual(names(await buckets('?sort=name&order=desc')), ['gamma-logs', 'beta', 'alpha'])
    assert.deepEqual(names(await buckets('?prefix=g')), ['gamma-logs'])
    assert.deepEqual(names(await buckets('?match=*a')), ['alpha', 'beta'])
    assert.deepEqual(names(await buckets(`?match=${encodeURIComponent('[ab]*')}`)), ['alpha', 'beta'])
    const limited = await buckets('?sort=bytes&limit=1')
    assert.deepEqual(names(limited), ['beta'])
    assert.equal(limited.matched, 3)
    for (const bad of ['?limit=0', '?limit=10001', '?limit=x', '?sort=size', '?order=up', '?match=[ab']) {
      const response = await get(`/api/v1/buckets${bad}`)
      assert.equal(response.status, 400, bad)
      assert.equal(((await response.json()) as { statusCode: number }).statusCode, 400)
    }
    // A mistyped parameter is refused and named, not ignored.
    const mistyped = await get('/api/v1/buckets?limt=1')
    assert.equal(mistyped.status, 400)
    assert.match(((await mistyped.json()) as { message: string }).message, /limt/)
  })

  it('takes numbers in plain decimal only: 0x10, 1e1, 0b10 or a padded number is a 400 naming it', async () => {
    assert.equal((await buckets('?limit=02')).buckets.length, 2, 'leading zeros are still decimal')
    for (const bad of [
      '0x10',
      '1e1',
      '0b10',
      '0o2',
      '%202',
      '2%20',
      '+2',
      '2.0',
      '',
      '2&limit=0x3',
      '0x1&limit=2',
    ]) {
      const response = await get(`/api/v1/buckets?limit=${bad}`)
      assert.equal(response.status, 400, `limit=${bad}`)
      assert.match(((await response.json()) as { message: string }).message, /limit/, `limit=${bad}`)
    }
    // The landing page takes the same rule for its page number, and says so on a page of its own.
    for (const bad of ['0x2', '1e0', '+1']) {
      const page = await get(`/?page=${bad}`)
      assert.equal(page.status, 400, `page=${bad}`)
      assert.match(page.headers.get('content-type') ?? '', /text\/html/)
      assert.match(await page.text(), /querystring\/page must be a whole number in decimal digits/)
    }
  })

  it('shows the drives and the status', async () => {
    const scrape = await running.scrape(auth)
    const { drives } = (await (await get('/api/v1/drives')).json()) as {
      drives: { path: string; state: string; totalBytes?: number }[]
    }
    assert.equal(drives.length, 1)
    assert.equal(drives[0]?.state, 'online')
    assert.equal(
      drives[0]?.totalBytes,
      sampleValue(scrape, 'objstore_node_drive_total_bytes', { drive: drives[0]?.path ?? '' }),
    )
    const status = (await (await get('/api/v1/status')).json()) as Record<string, unknown>
    assert.equal(status.source, 'fs')
    assert.equal(status.sourceUp, true)
    assert.equal(status.sourceError, null)
    assert.equal(status.buckets, 3)
    assert.equal(status.ready, true)
    assert.ok(
      Date.parse(String(status.nextScanAt)) > Date.parse(String(status.lastScanAt)),
      'next scan after the last',
    )
  })

  it('requires the bearer token /metrics requires', async () => {
    for (const path of ['/api/v1/buckets', '/api/v1/drives', '/api/v1/status', '/api/openapi.json']) {
      assert.equal((await get(path, {})).status, 401, path)
      assert.equal((await get(path, { authorization: 'Bearer wrong' })).status, 401, path)
      assert.equal((await get(path)).status, 200, path)
    }
  })
})

describe('JSON API when the source is down', () => {
  it('says so in the status, with the reason and no secret', async () => {
    const secret = 'sk-api-down-9b8e7d6c5a4f'
    const running = await startExporter({
      BUCKETS_SOURCE: 's3',
      S3_ENDPOINT: `http://127.0.0.1:${await freePort()}`,
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: 'AKIDAPIDOWN',
      S3_SECRET_ACCESS_KEY: secret,
      SCAN_TIMEOUT_SECONDS: '5',
    })
    try {
      const response = await fetch(`${running.baseUrl}/api/v1/status`)
      const text = await response.text()
      const status = JSON.parse(text) as Record<string, unknown>
      assert.equal(status.source, 's3')
      assert.equal(status.sourceUp, false)
      assert.equal(typeof status.sourceError, 'string')
      assert.ok(String(status.sourceError).length > 0)
      assert.ok(!text.includes(secret))
      const listed = (await (await fetch(`${running.baseUrl}/api/v1/buckets`)).json()) as {
        sourceUp: boolean
      }
      assert.equal(listed.sourceUp, false)
    } finally {
      await running.close()
    }
  })
})
