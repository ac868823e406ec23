import assert from 'node:assert/strict'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { opensslSkipReason } from '../support/certificates.js'
import { startExporter } from '../support/exporter.js'
import { sampleValue } from '../support/exposition.js'
import { scratchFolder } from '../support/scratch.js'
import { SnsService, TOPIC_ARN } from '../support/sns-service.js'
import { waitFor } from '../support/wait-for.js'

/**
 * AWS S3 through SNS, on the whole exporter over HTTP: SNS posts as it does (text/plain, the
 * message type header, the token in the subscription URL's query); the confirmation and the
 * signing certificate are fetched from a loopback stand-in for sns.us-east-1.amazonaws.com whose
 * TLS certificate a CA made by the test signed (the test process's undici dispatcher points that
 * host there and trusts that CA; the exporter's code is the production code).
 */

const TOKEN = 'events-sns-token-9a7c3e1f0b'

test('SNS: the subscription is confirmed, then a signed S3 notification starts a round that lists the change', async (t) => {
  const skip = await opensslSkipReason()
  if (skip) return t.skip(skip)
  const sns = await SnsService.start(await scratchFolder(t, 'objstore-sns-'))
  t.after(() => sns.close())
  const running = await startExporter({
    EVENTS_AUTH_TOKEN: TOKEN,
    EVENTS_SNS_TOPIC_ARNS: TOPIC_ARN,
    EVENTS_DEBOUNCE_SECONDS: '0.05',
    SCAN_INTERVAL_SECONDS: '3600',
  })
  t.after(() => running.close())
  const deliver = async (message: Record<string, string>) => {
    const response = await fetch(`${running.baseUrl}/events?token=${TOKEN}`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': message.Type ?? '' },
      body: JSON.stringify(message),
    })
    return { status: response.status, body: await response.text() }
  }

  const confirmation = await deliver(sns.message('SubscriptionConfirmation', 'You have chosen to subscribe'))
  assert.equal(confirmation.status, 200, confirmation.body)
  assert.ok(sns.requests.some((path) => path.startsWith('/?Action=ConfirmSubscription')))
  assert.ok(running.logs.lines.some((line) => line.msg === 'SNS subscription confirmed'))

  const bucket = join(running.config.DATA_DIR, 'ledger')
  await mkdir(bucket, { recursive: true })
  await writeFile(join(bucket, 'q4.csv'), Buffer.alloc(700))
  const s3Document = JSON.stringify({
    Records: [
      {
        eventVersion: '2.1',
        eventSource: 'aws:s3',
        eventName: 'ObjectCreated:Put',
        s3: {
          bucket: { name: 'ledger' },
          object: { key: 'q4.csv', size: 700, sequencer: '0055AED6DCD90281E5' },
        },
      },
    ],
  })
  const notification = await deliver(
    sns.message('Notification', s3Document, { subject: 'Amazon S3 Notification' }),
  )
  assert.equal(notification.status, 200, notification.body)
  await waitFor('the early round', async () => {
    const scrape = await running.scrape()
    return scrape.samples.some((sample) => sample.labels.bucket === 'ledger')
  })
  const scrape = await running.scrape()
  assert.equal(sampleValue(scrape, 'objstore_bucket_usage_total_bytes', { bucket: 'ledger' }), 700)
  assert.equal(sampleValue(scrape, 'objstore_events_applied_total'), 1)
  const forged = { ...sns.message('Notification', s3Document), TopicArn: `${TOPIC_ARN}-other` }
  assert.equal((await deliver(forged)).status, 403)
})
