import { Type } from '@sinclair/typebox'
import { describedPattern } from '../schema-helpers.js'

/** An AWS SNS topic ARN: partition, region, 12-digit account, topic name (256 characters at most). */
const TOPIC_ARN = 'arn:aws[a-z-]{0,16}:sns:[a-z0-9-]{1,32}:[0-9]{12}:[A-Za-z0-9_.-]{1,256}'

/** The change-event endpoint, `POST /events` (src/events/, src/server/routes/events.ts). */
export const eventsEnv = {
  EVENTS_AUTH_TOKEN: Type.String({
    default: '',
    pattern: describedPattern(
      '^([A-Za-z0-9._~-]{16,256})?$',
      '16 to 256 characters of A-Z, a-z, 0-9 and . _ ~ - (they travel unchanged in a query parameter)',
    ),
    description:
      'Turns on `POST /events`, where stores deliver S3 event notifications (MinIO webhook, Ceph RGW push endpoint, AWS SNS HTTP(S) subscription); the token must come in `Authorization: Bearer <token>` or a `token` query parameter. Empty: no endpoint (404). See docs/events.md.',
  }),
  EVENTS_SNS_TOPIC_ARNS: Type.String({
    default: '',
    maxLength: 8192,
    pattern: describedPattern(
      `^(${TOPIC_ARN}(,${TOPIC_ARN}){0,31})?$`,
      'comma-separated SNS topic ARNs (arn:aws:sns:REGION:ACCOUNT:NAME), at most 32',
    ),
    description:
      'AWS SNS topics whose messages `POST /events` accepts: a subscription confirmation from one of them is confirmed (its SubscribeURL fetched), and its notifications are verified (signature, signing certificate from `https://sns.<region>.amazonaws.com`). Messages from any other topic are refused. Empty: no SNS message is accepted.',
  }),
  EVENTS_DEBOUNCE_SECONDS: Type.Number({
    default: 5,
    minimum: 0,
    maximum: 3600,
    description:
      'When change events arrive, the next scan round starts this long after the first of them instead of after `SCAN_INTERVAL_SECONDS`, and no sooner than this long after the last round ended: at most one early round per period, never while a round runs (events during one make the next start a period after it ends). Until per-range subtotals land every early round lists each bucket whole: raise it where listing is dear. 0: events never start a round early.',
  }),
}
