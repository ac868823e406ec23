import { Sha256 } from '@smithy/core/checksum'
import { SignatureV4 } from '@smithy/signature-v4'

interface TopicCluster {
  readonly endpoint: string
  readonly accessKeyId: string
  readonly secretAccessKey: string
}

/**
 * Creates an RGW bucket-notification topic pushing to `pushEndpoint`, through the SNS-compatible
 * API RGW serves on its own endpoint (a SigV4-signed form POST, service `sns`, as
 * shared/reference/test-servers.md describes); returns its ARN (`arn:aws:sns:default::NAME`).
 * Not persistent: each event is pushed while the S3 call that caused it waits.
 */
export async function createPushTopic(
  cluster: TopicCluster,
  name: string,
  pushEndpoint: string,
): Promise<string> {
  const url = new URL(cluster.endpoint)
  const body = new URLSearchParams({
    Action: 'CreateTopic',
    Name: name,
    'Attributes.entry.1.key': 'push-endpoint',
    'Attributes.entry.1.value': pushEndpoint,
    'Attributes.entry.2.key': 'persistent',
    'Attributes.entry.2.value': 'false',
  }).toString()
  const signer = new SignatureV4({
    service: 'sns',
    region: 'default',
    credentials: { accessKeyId: cluster.accessKeyId, secretAccessKey: cluster.secretAccessKey },
    sha256: Sha256,
  })
  const signed = await signer.sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    port: Number(url.port),
    path: '/',
    headers: { host: url.host, 'content-type': 'application/x-www-form-urlencoded' },
    body,
  })
  const response = await fetch(`${cluster.endpoint}/`, {
    method: 'POST',
    headers: signed.headers,
    body,
    signal: AbortSignal.timeout(30_000),
  })
  const text = await response.text()
  const arn = /<TopicArn>([^<]+)<\/TopicArn>/.exec(text)?.[1]
  if (response.status !== 200 || !arn)
    throw new Error(`CreateTopic answered ${response.status}: ${text.slice(0, 300)}`)
  return arn
}
