import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { VERSION } from '../../src/version.js'
import { chromiumSkipReason, launchChromium, visibleText } from '../support/chromium.js'
import { type RunningExporter, startExporter } from '../support/exporter.js'
import { sampleValue } from '../support/exposition.js'
import { fillBucket, S3RVER_KEYS, type S3rverProcess, startS3rver } from '../support/s3rver.js'

/** The landing page as a user sees it: opened in headless Chromium, read through the DOM. */
describe('the landing page in a real browser', { skip: chromiumSkipReason() }, () => {
  let scratch: string
  let drive: string
  let missingDrive: string
  let s3rver: S3rverProcess
  let exporter: RunningExporter
  let browser: Browser
  let page: Page
  const consoleErrors: string[] = []

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'objstore-landing-'))
    drive = join(scratch, 'disk1')
    missingDrive = join(scratch, 'disk2')
    await mkdir(drive)
    s3rver = await startS3rver()
    await fillBucket(s3rver.client, 'photos', [
      { key: 'a.jpg', size: 1000 },
      { key: 'b.jpg', size: 2000 },
      { key: 'c/d.jpg', size: 3000 },
    ])
    await fillBucket(s3rver.client, 'backups', [{ key: 'db.dump', size: 10 }])
    exporter = await startExporter({ ...s3rver.exporterEnv, DRIVES: `${drive},${missingDrive}` })
    browser = await launchChromium()
    page = await browser.newPage()
    // Whatever the browser refuses (a style the Content-Security-Policy blocks) is reported here.
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text())
    })
  })

  after(async () => {
    await browser?.close()
    await exporter?.close()
    await s3rver?.stop()
    await rm(scratch, { recursive: true, force: true })
  })

  test('before any scrape it says where drive states will come from', async () => {
    const response = await page.goto(`${exporter.baseUrl}/`)
    assert.equal(response?.status(), 200)
    assert.equal(await page.title(), 'objstore-exporter')
    assert.match(
      await visibleText(page.locator('#drives')),
      /2 drive\(s\) configured; their state appears after the first scrape/,
    )
    assert.equal(await visibleText(page.locator('tr[data-collector="drives"] .state')), 'not run yet')
  })

  test('the largest buckets and the last scan, with the figures of the store', async () => {
    await page.goto(`${exporter.baseUrl}/`)
    assert.match(
      await visibleText(page.locator('#last-scan')),
      /^Source s3 up; last scan finished \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(\d+ s ago\); 2 bucket\(s\), 0 failing\.$/,
    )
    const rows = await page
      .locator('#buckets tbody tr')
      .evaluateAll((elements) =>
        elements.map((element) =>
          [...(element as unknown as { cells: Iterable<{ textContent: string }> }).cells].map(
            (cell) => cell.textContent,
          ),
        ),
      )
    assert.deepEqual(
      rows.map((cells) => [cells[0], cells[1], cells[2], cells[4]]),
      [
        ['photos', '5.9 KiB', '3', 'ok'],
        ['backups', '10 B', '1', 'ok'],
      ],
    )
    assert.match(rows[0]?.[3] ?? '', /^\d+ s ago$/)
    assert.match(
      await visibleText(page.locator('#next-scan')),
      /^Next scan at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(in \d+ min\); buckets created since the last scan appear then\.$/,
    )
    assert.equal(await visibleText(page.locator('tr[data-source="s3"] .state')), 'up')
  })

  test('no credential appears on the page', async () => {
    // s3rver accepts only its own key pair (both `S3RVER`), so that is what the exporter holds.
    assert.equal(exporter.config.S3_SECRET_ACCESS_KEY, S3RVER_KEYS.secretAccessKey)
    await page.goto(`${exporter.baseUrl}/`)
    const html = await page.content()
    assert.ok(html.includes('photos'), 'the page did not render')
    assert.ok(!html.includes(S3RVER_KEYS.secretAccessKey), 'a key is on the page')
  })

  test('after a scrape: build info, source state, and each drive with a capacity bar of the scraped figures', async () => {
    const scrape = await exporter.scrape()
    await page.reload()
    const build = await visibleText(page.locator('#build'))
    assert.match(build, new RegExp(`Version\\s+${VERSION.replace(/\./g, '\\.')}`))
    assert.match(build, new RegExp(`Node\\.js\\s+${process.version.replace(/\./g, '\\.')}`))
    assert.match(build, /Metric namespace\s+objstore/)
    assert.match(build, /Ready\s+yes/)
    assert.equal(await visibleText(page.locator('tr[data-collector="drives"] .state')), 'ok')
    assert.equal(await visibleText(page.locator('tr[data-collector="usage"] .state')), 'ok')

    // The bar is a <meter> of used bytes against used + available (df's Use%), as scraped.
    const meter = page.locator(`tr[data-drive="${drive}"] meter`)
    const [value, max] = await meter.evaluate((element) => {
      // The DOM's HTMLMeterElement (this project compiles without the DOM library).
      const bar = element as unknown as { value: number; max: number }
      return [bar.value, bar.max]
    })
    assert.equal(value, sampleValue(scrape, 'objstore_node_drive_used_bytes', { drive }))
    assert.equal(
      max,
      sampleValue(scrape, 'objstore_node_drive_used_bytes', { drive }) +
        sampleValue(scrape, 'objstore_node_drive_free_bytes', { drive }),
    )
    const box = await meter.boundingBox()
    // 12rem wide as the page's style says: the inline style is applied, not blocked by the CSP.
    assert.ok(
      box && box.width === 192 && box.height > 5,
      `the bar is not drawn as styled: ${JSON.stringify(box)}`,
    )
    assert.deepEqual(consoleErrors, [])
    const row = await visibleText(page.locator(`tr[data-drive="${drive}"]`))
    assert.match(row, /\d+\.\d% used/)
    assert.match(row, /free/)

    assert.match(
      await visibleText(page.locator(`tr[data-drive="${missingDrive}"]`)),
      /offline: statfs failed: ENOENT/,
    )
  })

  test('the source down: its row and the scan line give the reason, not "ok"', async () => {
    // Last: the store goes away for good, and a scan finds it so.
    await s3rver.stop()
    await exporter.exporter.scanner.scanNow()
    await page.goto(`${exporter.baseUrl}/`)
    assert.match(
      await visibleText(page.locator('tr[data-source="s3"] .state')),
      /^down: ListBuckets: .*ECONNREFUSED/,
    )
    assert.match(
      await visibleText(page.locator('#last-scan')),
      /^Source s3 down: ListBuckets: .*ECONNREFUSED.*; last scan finished/,
    )
  })

  test('its Metrics link opens the scrape', async () => {
    await page.goto(`${exporter.baseUrl}/`)
    await page.getByRole('link', { name: 'Metrics' }).click()
    await page.waitForURL(/\/metrics$/)
    assert.match(await visibleText(page.locator('body')), /objstore_exporter_build_info\{/)
  })
})
