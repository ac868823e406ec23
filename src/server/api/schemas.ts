import { type Static, Type } from '@sinclair/typebox'
import { MAX_GLOB_LENGTH } from '../../config/bucket-selection.js'
import { BucketJsonSchema, UsageTotalsSchema } from '../../snapshot/snapshot-json.js'

/**
 * The JSON API's request and response schemas, with an example each: Fastify validates queries
 * and serialises answers by them, and @fastify/swagger builds /api/openapi.json from them.
 */

const Instant = Type.String({ format: 'date-time', description: 'RFC 3339, UTC' })
const MaybeInstant = Type.Union([Instant, Type.Null()])

/** At most this many buckets per answer (a store may hold tens of thousands). */
const MAX_BUCKET_LIMIT = 10_000

export const BucketsQuerySchema = Type.Object(
  {
    sort: Type.Optional(
      Type.Union([Type.Literal('name'), Type.Literal('bytes'), Type.Literal('objects')], {
        description: 'Sort key; default name.',
      }),
    ),
    order: Type.Optional(
      Type.Union([Type.Literal('asc'), Type.Literal('desc')], {
        description: 'Default asc for name, desc (largest first) for bytes and objects.',
      }),
    ),
    prefix: Type.Optional(
      Type.String({ maxLength: 1024, description: 'Only buckets whose name starts with this.' }),
    ),
    match: Type.Optional(
      Type.String({
        maxLength: MAX_GLOB_LENGTH,
        description:
          'Only buckets whose name matches this glob (`*`, `?`, `[a-z]`, `[!x]`), as BUCKETS_INCLUDE.',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_BUCKET_LIMIT,
        default: 1000,
        description: 'At most this many buckets, after sorting; `matched` says how many there were.',
      }),
    ),
  },
  { additionalProperties: false },
)
export type BucketsQuery = Static<typeof BucketsQuerySchema>

export const BucketsResponseSchema = Type.Object(
  {
    source: Type.String({ description: 'BUCKETS_SOURCE' }),
    sourceUp: Type.Boolean({ description: 'Whether the last scan reached the source.' }),
    completedAt: Instant,
    matched: Type.Integer({ minimum: 0, description: 'Buckets matching the filter, before `limit`.' }),
    totals: UsageTotalsSchema,
    buckets: Type.Array(BucketJsonSchema),
  },
  {
    additionalProperties: false,
    description: 'Buckets of the last usage snapshot: the figures /metrics serves.',
    examples: [
      {
        source: 's3',
        sourceUp: true,
        completedAt: '2026-12-03T09:30:00.000Z',
        matched: 1,
        totals: { buckets: 1, bytes: 1572864, objects: 12 },
        buckets: BucketJsonSchema.examples,
      },
    ],
  },
)

const DriveJsonSchema = Type.Object(
  {
    path: Type.String(),
    state: Type.Union([Type.Literal('online'), Type.Literal('offline'), Type.Literal('not probed yet')]),
    reason: Type.Optional(Type.String({ description: 'Why the drive is offline.' })),
    totalBytes: Type.Optional(Type.Integer({ minimum: 0 })),
    usedBytes: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Total minus free blocks, as df counts used.' }),
    ),
    freeBytes: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Available to unprivileged users (statfs bavail).' }),
    ),
    totalInodes: Type.Optional(Type.Integer({ minimum: 0 })),
    freeInodes: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
)

export const DrivesResponseSchema = Type.Object(
  {
    drives: Type.Array(DriveJsonSchema, {
      description: 'Each DRIVES path as the last scrape of /metrics found it (no statfs of its own).',
    }),
  },
  {
    additionalProperties: false,
    examples: [
      {
        drives: [
          {
            path: '/mnt/disk1',
            state: 'online',
            totalBytes: 1000204886016,
            usedBytes: 250051221504,
            freeBytes: 699342983168,
            totalInodes: 61054976,
            freeInodes: 60998011,
          },
          { path: '/mnt/disk2', state: 'offline', reason: 'statfs did not answer within 2000 ms' },
        ],
      },
    ],
  },
)

const Count = Type.Integer({ minimum: 0 })

/** The running round as /api/v1/status gives it (src/scanning/round-progress.ts). */
const RunningScanSchema = Type.Object(
  {
    startedAt: Instant,
    phase: Type.Union([Type.Literal('listing'), Type.Literal('measuring'), Type.Literal('finishing')], {
      description:
        "listing: the buckets (rgw: every bucket's stats); measuring: the buckets; finishing: users, files outside buckets, the snapshot.",
    }),
    buckets: Type.Union([Count, Type.Null()], {
      description: 'Buckets selected for the round; null while they are listed.',
    }),
    bucketsDone: Type.Integer({ minimum: 0, description: 'Of those, the ones measured or failed.' }),
    failedBuckets: Type.Integer({ minimum: 0, description: 'Of those done, the ones that failed.' }),
    objects: Type.Integer({
      minimum: 0,
      description:
        'Current objects so far: the buckets measured, and what the listings of those in progress have folded (scan_round_objects_listed).',
    }),
    bytes: Type.Integer({ minimum: 0, description: 'Their bytes (scan_round_bytes_listed).' }),
    requests: Type.Union([Count, Type.Null()], {
      description: 'Requests sent to the store since the round started; null for fs.',
    }),
    elapsedSeconds: Type.Number({ minimum: 0 }),
    objectsPerSecond: Type.Number({ minimum: 0, description: 'objects / elapsedSeconds.' }),
    inProgress: Type.Array(Type.String(), {
      maxItems: 3,
      description: 'Buckets being measured, the longest first (at most 3), secrets blanked.',
    }),
    bucketsInProgress: Type.Integer({ minimum: 0, description: 'How many buckets are being measured.' }),
  },
  { additionalProperties: false },
)

export const StatusResponseSchema = Type.Object(
  {
    version: Type.String(),
    startedAt: Instant,
    ready: Type.Boolean({ description: 'What /readyz answers.' }),
    waitingFor: Type.Array(Type.String(), { description: 'Readiness checks not passing yet.' }),
    source: Type.String({ description: 'BUCKETS_SOURCE' }),
    sourceUp: Type.Union([Type.Boolean(), Type.Null()], { description: 'null before the first scan.' }),
    sourceError: Type.Union([Type.String(), Type.Null()], {
      description: 'Why the last scan found the source down, secrets blanked.',
    }),
    lastScanAt: MaybeInstant,
    nextScanAt: Type.Union([Instant, Type.Null()], { description: 'null while a scan runs.' }),
    scanIntervalSeconds: Type.Number({ minimum: 0 }),
    buckets: Type.Integer({ minimum: 0, description: 'Buckets in the last snapshot.' }),
    failedBuckets: Type.Integer({
      minimum: 0,
      description: 'Of those, the ones the last scan could not measure.',
    }),
    runningScan: Type.Union([RunningScanSchema, Type.Null()], {
      description: 'The scan round running now, and how far it got; null between rounds.',
    }),
    collectors: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          state: Type.Union([Type.Literal('ok'), Type.Literal('failing'), Type.Literal('not run yet')]),
          error: Type.Optional(Type.String({ description: 'Secrets blanked.' })),
          lastRunAt: MaybeInstant,
        },
        { additionalProperties: false },
      ),
      { description: 'How each collector fared in the last scrape.' },
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        version: '0.1.0',
        startedAt: '2026-12-03T09:00:00.000Z',
        ready: true,
        waitingFor: [],
        source: 'rgw',
        sourceUp: false,
        sourceError: 'connect ECONNREFUSED 127.0.0.1:7480',
        lastScanAt: '2026-12-03T09:30:00.000Z',
        nextScanAt: '2026-12-03T09:35:00.000Z',
        scanIntervalSeconds: 300,
        buckets: 42,
        failedBuckets: 0,
        runningScan: null,
        collectors: [
          { name: 'drives', state: 'ok', lastRunAt: '2026-12-03T09:31:00.000Z' },
          { name: 'usage', state: 'ok', lastRunAt: '2026-12-03T09:31:00.000Z' },
        ],
      },
      {
        version: '0.1.0',
        startedAt: '2026-12-03T09:00:00.000Z',
        ready: false,
        waitingFor: ['usage snapshot'],
        source: 's3',
        sourceUp: null,
        sourceError: null,
        lastScanAt: null,
        nextScanAt: null,
        scanIntervalSeconds: 300,
        buckets: 0,
        failedBuckets: 0,
        runningScan: {
          startedAt: '2026-12-03T09:00:01.000Z',
          phase: 'measuring',
          buckets: 53,
          bucketsDone: 41,
          failedBuckets: 0,
          objects: 18204512,
          bytes: 7340032000000,
          requests: 18311,
          elapsedSeconds: 605.2,
          objectsPerSecond: 30080.2,
          inProgress: ['archive-2024', 'logs-prod'],
          bucketsInProgress: 2,
        },
        collectors: [{ name: 'usage', state: 'ok', lastRunAt: '2026-12-03T09:10:00.000Z' }],
      },
    ],
  },
)

export const ErrorResponseSchema = Type.Object(
  { statusCode: Type.Integer(), error: Type.String(), message: Type.String() },
  {
    examples: [
      {
        statusCode: 503,
        error: 'Service Unavailable',
        message: 'no usage snapshot yet: the first scan is running',
      },
    ],
  },
)
