/**
 * AWS SNS messages as an HTTP(S) subscription receives them: a JSON envelope whose `Type` is
 * `SubscriptionConfirmation`, `Notification` or `UnsubscribeConfirmation`, signed by SNS
 * (https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html).
 */
export interface SnsMessage {
  readonly Type: 'Notification' | 'SubscriptionConfirmation' | 'UnsubscribeConfirmation'
  readonly MessageId: string
  readonly TopicArn: string
  readonly Message: string
  readonly Timestamp: string
  readonly SignatureVersion: '1' | '2'
  readonly Signature: string
  readonly SigningCertURL: string
  readonly Subject?: string
  readonly SubscribeURL?: string
  readonly Token?: string
}

const TYPES = new Set(['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation'])
const REQUIRED = ['MessageId', 'TopicArn', 'Message', 'Timestamp', 'Signature', 'SigningCertURL'] as const

/** Whether a delivery's document is an SNS envelope (rather than a store's `{"Records": ...}`). */
export function looksLikeSns(document: unknown): boolean {
  return typeof document === 'object' && document !== null && 'Type' in document && 'TopicArn' in document
}

/** The envelope checked field by field; undefined when a field is missing or of the wrong kind. */
export function readSnsMessage(document: unknown): SnsMessage | undefined {
  if (typeof document !== 'object' || document === null) return undefined
  const fields = document as Record<string, unknown>
  if (typeof fields.Type !== 'string' || !TYPES.has(fields.Type)) return undefined
  if (fields.SignatureVersion !== '1' && fields.SignatureVersion !== '2') return undefined
  for (const name of REQUIRED) if (typeof fields[name] !== 'string') return undefined
  for (const name of ['Subject', 'SubscribeURL', 'Token'])
    if (fields[name] !== undefined && typeof fields[name] !== 'string') return undefined
  if (
    fields.Type !== 'Notification' &&
    (typeof fields.SubscribeURL !== 'string' || typeof fields.Token !== 'string')
  )
    return undefined
  return fields as unknown as SnsMessage
}

/**
 * The text SNS signed: for a notification Message, MessageId, Subject (when present), Timestamp,
 * TopicArn and Type; for the confirmations Message, MessageId, SubscribeURL, Timestamp, Token,
 * TopicArn and Type; each as its name, a newline, its value, a newline.
 */
export function stringToSign(message: SnsMessage): string {
  const names =
    message.Type === 'Notification'
      ? (['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'] as const)
      : (['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'] as const)
  let text = ''
  for (const name of names) {
    const value = message[name]
    if (value !== undefined) text += `${name}\n${value}\n`
  }
  return text
}

/**
 * Whether `url` may be fetched for SNS: https, on `sns.<region>.amazonaws.com` (or `.com.cn`), the
 * default port, no credentials. The signing certificate and the SubscribeURL both must be, so a
 * forged message can neither bring its own certificate nor make the exporter call another host.
 */
export function isSnsUrl(url: string): boolean {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return false
  }
  return (
    parsed.protocol === 'https:' &&
    parsed.port === '' &&
    parsed.username === '' &&
    parsed.password === '' &&
    /^sns\.[a-z0-9-]{1,32}\.amazonaws\.com(\.cn)?$/.test(parsed.hostname)
  )
}
