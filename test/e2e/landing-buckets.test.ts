import assert from 'node:assert/strict'
import { mkdir, mkdtemp, open, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { chromiumSkipReason, launchChromium, visibleText } from '../support/chromium.js'
import { type RunningExporter, startExporter } from '../support/exporter.js'

/** 130 buckets: more than a page of the list (100) and than the treemap's tiles (50). */
const BUCKETS = 130

/**
 * Bucket i's files: sparse, so sizes spread over three orders of magnitude cost no disk. Each
 * has two top-level folders and a file at its root, so the treemap has prefixes to draw.
 */
function filesOf(index: number): { path: string; size: number }[] {
  const bytes = Math.round(4e9 / (index + 1)) + index
  const logs = Math.round(bytes * 0.55)
  const images = Math.round(bytes * 0.3)
  return [
    { path: 'logs/app.log', size: logs },
    { path: 'img/a.png', size: images },
    { path: 'top.bin', size: bytes - logs - images },
  ]
}
const nameOf = (index: number) => `b-${String(index).padStart(3, '0')}`
const bytesOf = (index: number) => filesOf(index).reduce((sum, file) => sum + file.size, 0)
const grouped = (count: number) => count.toLocaleString('en-US')

interface Box {
  readonly x: number
  readonly y: number
  readonly width: number
  readonly height: number
}

/** The treemap's tiles as laid out by the browser, in CSS pixels from the drawing's top left. */
interface TreemapBoxes {
  readonly frame: { readonly width: number; readonly height: number }
  readonly groups: readonly {
    readonly bucket: string | null
    readonly tile: Box
    readonly prefixes: readonly { readonly prefix: string | null; readonly area: number }[]
  }[]
}

interface ApiBuckets {
  readonly matched: number
  readonly totals: { buckets: number; bytes: number; objects: number }
  readonly buckets: readonly { name: string; bytes: number; objects: number }[]
}

/** Each row of the bucket table: name, exact bytes (the size's hover text), objects as shown. */
function tableRows(page: Page) {
  return page.locator('#bucket-table tbody tr').evaluateAll((rows) =>
    rows.map((row) => {
      const cells = (
        row as unknown as {
          cells: ArrayLike<{ textContent: string; querySelector(s: string): { title: string } | null }>
        }
      ).cells
      return {
        name: cells[0]?.textContent ?? '',
        bytes: Number(
          (cells[1]?.querySelector('.size')?.title ?? '').replace(/ bytes$/, '').replaceAll(',', ''),
        ),
        objects: cells[2]?.textContent ?? '',
      }
    }),
  )
}

describe('the bucket list and the treemap in a real browser, JavaScript off', {
  skip: chromiumSkipReason(),
}, () => {
  let scratch: string
  let exporter: RunningExporter
  let browser: Browser
  let context: BrowserContext
  let page: Page
  const api = async (query: string): Promise<ApiBuckets> =>
    (await (await fetch(`${exporter.baseUrl}/api/v1/buckets${query}`)).json()) as ApiBuckets

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'objstore-landing-buckets-'))
    const data = join(scratch, 'data')
    for (let index = 0; index < BUCKETS; index++) {
      for (const file of filesOf(index)) {
        const path = join(data, nameOf(index), file.path)
        await mkdir(join(path, '..'), { recursive: true })
        const handle = await open(path, 'w')
        await handle.truncate(file.size)
        await handle.close()
      }
    }
    exporter = await startExporter({
      DATA_DIR: data,
      DRIVES: data,
      BUCKET_METRICS: 'default,prefixes',
      SCAN_INTERVAL_SECONDS: '600',
    })
    browser = await launchChromium()
    // The page must work with no script at all: links and a GET form.
    context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } })
    page = await context.newPage()
  })

  after(async () => {
    await browser?.close()
    await exporter?.close()
    await rm(scratch, { recursive: true, force: true })
  })

  test('every bucket, 100 a page, largest first, with the figures and totals the API gives', async () => {
    const all = await api(`?sort=bytes&limit=${BUCKETS}`)
    assert.equal(all.matched, BUCKETS)
    assert.equal(all.buckets[0]?.bytes, bytesOf(0))
    await page.goto(`${exporter.baseUrl}/`)
    const first = await tableRows(page)
    assert.deepEqual(
      first,
      all.buckets
        .slice(0, 100)
        .map((bucket) => ({ name: bucket.name, bytes: bucket.bytes, objects: grouped(bucket.objects) })),
    )
    assert.equal(await visibleText(page.locator('#bucket-table caption')), `Buckets 1 to 100 of ${BUCKETS}.`)
    assert.match(
      await visibleText(page.locator('#bucket-table tfoot')),
      new RegExp(`^All: ${BUCKETS} bucket\\(s\\)\\s+\\S+ \\S+\\s+${grouped(all.totals.objects)}`),
    )
    assert.equal(
      await page.locator('#bucket-table tfoot .size').getAttribute('title'),
      `${grouped(all.totals.bytes)} bytes`,
    )
    await page.getByRole('link', { name: 'next' }).click()
    await page.waitForURL(/\/\?page=2$/)
    assert.deepEqual(
      (await tableRows(page)).map((row) => row.name),
      all.buckets.slice(100).map((bucket) => bucket.name),
    )
    assert.equal(await visibleText(page.locator('#pager')), 'Page 2 of 2: first · previous')
  })

  test('sorted by a column link and filtered by the form, as the API sorts and filters', async () => {
    await page.goto(`${exporter.baseUrl}/`)
    await page.locator('#bucket-table th a[data-sort="name"]').click()
    await page.waitForURL(/\/\?sort=name$/)
    const byName = await api('?sort=name&limit=100')
    assert.deepEqual(
      (await tableRows(page)).map((row) => row.name),
      byName.buckets.map((bucket) => bucket.name),
    )
    await page.locator('input[name="match"]').fill('b-1[0-2]?')
    await page.locator('select[name="sort"]').selectOption('objects')
    await page.locator('select[name="order"]').selectOption('asc')
    await page.getByRole('button', { name: 'Show' }).click()
    await page.waitForURL(/match=b-1%5B0-2%5D%3F/)
    const matching = await api(`?sort=objects&order=asc&match=${encodeURIComponent('b-1[0-2]?')}`)
    assert.equal(matching.matched, 30)
    assert.deepEqual(
      (await tableRows(page)).map((row) => row.name),
      matching.buckets.map((bucket) => bucket.name),
    )
    assert.equal(
      await visibleText(page.locator('#bucket-table caption')),
      `Buckets 1 to 30 of 30 matching (of ${BUCKETS}).`,
    )
    // Its link to the API asks the API for the same list.
    const link = await page.locator('#buckets a[href^="/api/v1/buckets?"]').getAttribute('href')
    assert.deepEqual((await api(link?.slice('/api/v1/buckets'.length) ?? '')).buckets, matching.buckets)
  })

  test('a query the API would refuse is a 400 page saying which parameter, not a list', async () => {
    for (const [query, reason] of [
      ['?sort=size', /querystring\/sort must be equal to constant/],
      ['?page=0', /querystring\/page must be >= 1/],
      ['?page=100001', /querystring\/page must be <= 100000/],
      ['?limt=1', /"limt"/],
      [`?match=${encodeURIComponent('[ab')}`, /match: unterminated \[/],
    ] as const) {
      const response = await page.goto(`${exporter.baseUrl}/${query}`)
      assert.equal(response?.status(), 400, query)
      assert.match(await visibleText(page.locator('#query-problem')), reason, query)
      assert.equal(await page.locator('#bucket-table').count(), 0, query)
    }
  })

  test('the treemap: each bucket and prefix tile has the area of its bytes, and is painted', async () => {
    await page.goto(`${exporter.baseUrl}/`)
    // A string, not a function: tsx would wrap the function's inner names in a helper the page lacks.
    const tiles = (await page.evaluate(`(() => {
      const svg = document.querySelector('svg.treemap')
      const frame = svg.getBoundingClientRect()
      const box = (element) => {
        const { x, y, width, height } = element.getBoundingClientRect()
        return { x: x - frame.x, y: y - frame.y, width, height }
      }
      return {
        frame: { width: frame.width, height: frame.height },
        groups: [...svg.querySelectorAll('g.bucket, g.others')].map((group) => ({
          bucket: group.getAttribute('data-bucket'),
          tile: box(group.querySelector('rect.tile')),
          prefixes: [...group.querySelectorAll('rect.prefix')].map((prefix) => ({
            prefix: prefix.getAttribute('data-prefix'),
            area: box(prefix).width * box(prefix).height,
          })),
        })),
      }
    })()`)) as TreemapBoxes
    const whole = tiles.frame.width * tiles.frame.height
    const total = Array.from({ length: BUCKETS }, (_, index) => bytesOf(index)).reduce((a, b) => a + b, 0)
    // Coordinates are written to 0.01 unit: an area is off by at most about 0.01 x its perimeter.
    const near = (area: number, expected: number, perimeter: number, what: string) =>
      assert.ok(
        Math.abs(area - expected) <= 0.02 * perimeter + 0.5,
        `${what}: area ${area}, expected ${expected}`,
      )
    assert.equal(tiles.groups.length, 51, 'the 50 largest buckets and one tile for the rest')
    let othersBytes = total
    for (const group of tiles.groups.filter((entry) => entry.bucket !== null)) {
      const index = Number(group.bucket?.slice(2))
      assert.ok(index < 50, `${group.bucket} is among the 50 largest`)
      othersBytes -= bytesOf(index)
      const area = group.tile.width * group.tile.height
      near(
        area,
        (bytesOf(index) / total) * whole,
        2 * (group.tile.width + group.tile.height),
        `${group.bucket}`,
      )
      // Inside it, its three prefixes (fs: the top-level folders, _root for the file at its root).
      const byPrefix = new Map(group.prefixes.map((prefix) => [prefix.prefix, prefix.area]))
      const [logs, images, root] = filesOf(index).map((file) => (file.size / bytesOf(index)) * area)
      for (const [prefix, expected] of [
        ['logs', logs],
        ['img', images],
        ['_root', root],
      ] as const) {
        const shown = byPrefix.get(prefix) ?? byPrefix.get(`${prefix}/`)
        assert.ok(shown !== undefined, `${group.bucket}: no tile for ${prefix} among ${[...byPrefix.keys()]}`)
        near(shown, expected ?? 0, 4 * Math.sqrt(shown) * 2, `${group.bucket} ${prefix}`)
      }
    }
    const others = tiles.groups.find((entry) => entry.bucket === null)
    assert.ok(others)
    near(
      others.tile.width * others.tile.height,
      (othersBytes / total) * whole,
      2 * (others.tile.width + others.tile.height),
      'others',
    )

    // The screenshot: the tiles are painted in the page's colours (the style is not blocked).
    const screenshot = await page.locator('svg.treemap').screenshot({ path: join(scratch, 'treemap.png') })
    const probes = tiles.groups.map((group) => ({
      others: group.bucket === null,
      x: Math.floor(group.tile.x + Math.min(3, group.tile.width / 2)),
      y: Math.floor(group.tile.y + group.tile.height - Math.min(3, group.tile.height / 2)),
    }))
    const pixels = await pixelsOf(browser, screenshot, probes)
    pixels.forEach(([red, green, blue], index) => {
      const probe = probes[index]
      if (probe?.others)
        assert.ok(
          Math.abs(red - 181) + Math.abs(green - 181) + Math.abs(blue - 181) <= 12,
          `others: ${red},${green},${blue}`,
        )
      else
        assert.ok(
          Math.max(red, green, blue) - Math.min(red, green, blue) > 30,
          `tile ${index} is not coloured: ${red},${green},${blue}`,
        )
    })
  })

  test('the 404 links the page, the API and its OpenAPI document, and the link works', async () => {
    const response = await page.goto(`${exporter.baseUrl}/no-such-page`)
    assert.equal(response?.status(), 404)
    assert.match(await visibleText(page.locator('body')), /\/api\/v1\/buckets/)
    await page.getByRole('link', { name: '/api/openapi.json' }).click()
    await page.waitForURL(/\/api\/openapi\.json$/)
    const document = JSON.parse(await visibleText(page.locator('body'))) as { openapi: string }
    assert.equal(document.openapi, '3.1.0')
    await page.goto(`${exporter.baseUrl}/`)
    await page.getByRole('link', { name: 'OpenAPI document' }).click()
    await page.waitForURL(/\/api\/openapi\.json$/)
  })
})

/** RGB of `png` at each point, read through a canvas in a page of its own (no CSP, script on). */
async function pixelsOf(
  browser: Browser,
  png: Buffer,
  points: readonly { x: number; y: number }[],
): Promise<[number, number, number][]> {
  const reader = await browser.newPage()
  try {
    return await reader.evaluate(
      `(async ([source, points]) => {
        const image = new Image()
        image.src = source
        await image.decode()
        const canvas = document.createElement('canvas')
        canvas.width = image.width
        canvas.height = image.height
        const context = canvas.getContext('2d')
        context.drawImage(image, 0, 0)
        return points.map(({ x, y }) => [...context.getImageData(x, y, 1, 1).data.slice(0, 3)])
      })(${JSON.stringify([`data:image/png;base64,${png.toString('base64')}`, points])})`,
    )
  } finally {
    await reader.close()
  }
}
