import { type Static, Type } from '@sinclair/typebox'
import { asOfSeconds, type BucketRecord, type UsageSnapshot } from './snapshot.js'
import { figuresOf, measuredBytes, measuredObjects } from './stored-records.js'

/**
 * A snapshot as JSON for people and scripts: `scan --once --format json` and the JSON API
 * (/api/v1/buckets) show buckets in this one shape, declared once with its examples (the API's
 * OpenAPI document is generated from these schemas).
 */

const Count = Type.Integer({ minimum: 0 })
const Instant = Type.String({ format: 'date-time', description: 'RFC 3339, UTC' })

export const BucketJsonSchema = Type.Object(
  {
    name: Type.String(),
    bytes: Type.Union([Count, Type.Null()], {
      description: 'Bytes of current objects; null until the bucket is first measured.',
    }),
    objects: Type.Union([Count, Type.Null()], { description: 'Current objects; null until first measured.' }),
    versions: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Object versions, delete markers included (SCAN_VERSIONS).' }),
    ),
    deleteMarkers: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Delete markers (SCAN_VERSIONS).' }),
    ),
    quotaBytes: Type.Optional(Type.Integer({ minimum: 0, description: 'The quota the source knows (rgw).' })),
    scanSuccess: Type.Boolean({
      description: 'Whether the last scan measured the bucket; if not, the figures are older.',
    }),
    scanDurationSeconds: Type.Number({ minimum: 0 }),
    lastSuccessAt: Type.Union([Instant, Type.Null()], { description: 'When the figures were measured.' }),
    asOf: Type.Union([Instant, Type.Null()], {
      description:
        'What the figures are as of: for a bucket with per-range subtotals (SCAN_FULL_EVERY), when its stalest range was listed; otherwise lastSuccessAt.',
    }),
    ranges: Type.Optional(
      Type.Object(
        {
          ranges: Type.Integer({ minimum: 1, description: 'Key ranges with a subtotal each.' }),
          dirty: Type.Integer({ minimum: 0, description: 'Ranges marked dirty when the last round ended.' }),
          relistedRatio: Type.Number({
            minimum: 0,
            maximum: 1,
            description: "Share of the bucket's entries the last round listed again.",
          }),
        },
        {
          additionalProperties: false,
          description: 'Per-range subtotals (issue 25); absent for a bucket listed whole.',
        },
      ),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'photos',
        bytes: 1572864,
        objects: 12,
        scanSuccess: true,
        scanDurationSeconds: 0.042,
        lastSuccessAt: '2026-12-03T09:30:00.000Z',
        asOf: '2026-12-03T09:30:00.000Z',
      },
    ],
  },
)
export type BucketJson = Static<typeof BucketJsonSchema>

export const UsageTotalsSchema = Type.Object(
  { buckets: Count, bytes: Count, objects: Count },
  { additionalProperties: false, description: 'Summed over the buckets shown.' },
)

const ScanJsonSchema = Type.Object(
  {
    source: Type.String({ description: 'BUCKETS_SOURCE' }),
    sourceUp: Type.Boolean(),
    completedAt: Instant,
    totals: UsageTotalsSchema,
    buckets: Type.Array(BucketJsonSchema),
  },
  { additionalProperties: false },
)
export type ScanJson = Static<typeof ScanJsonSchema>

/** One bucket record as JSON. */
export function bucketJson(record: BucketRecord): BucketJson {
  const usage = figuresOf(record)
  return {
    name: record.name,
    bytes: usage?.bytes ?? null,
    objects: usage?.objects ?? null,
    ...(usage?.versions
      ? { versions: usage.versions.versions, deleteMarkers: usage.versions.deleteMarkers }
      : {}),
    ...(usage?.quotaBytes !== undefined ? { quotaBytes: usage.quotaBytes } : {}),
    scanSuccess: record.scanSuccess,
    scanDurationSeconds: record.scanDurationSeconds,
    lastSuccessAt: instant(record.lastSuccessSeconds),
    asOf: instant(asOfSeconds(record)),
    ...(record.ranges
      ? {
          ranges: {
            ranges: record.ranges.ranges,
            dirty: record.ranges.dirty,
            relistedRatio: record.ranges.relistedRatio,
          },
        }
      : {}),
  }
}

function instant(seconds: number | undefined): string | null {
  return seconds === undefined ? null : new Date(seconds * 1000).toISOString()
}

/**
 * Bytes and objects summed over `records` (unmeasured ones count nothing), without decoding the
 * figures of records loaded from the state file (stored-records.ts).
 */
function usageTotals(records: readonly BucketRecord[]): Static<typeof UsageTotalsSchema> {
  let bytes = 0
  let objects = 0
  for (const record of records) {
    bytes += measuredBytes(record) ?? 0
    objects += measuredObjects(record) ?? 0
  }
  return { buckets: records.length, bytes, objects }
}

/** A whole snapshot as JSON (`scan --once --format json`). */
export function scanJson(snapshot: UsageSnapshot): ScanJson {
  return {
    source: snapshot.sourceName,
    sourceUp: snapshot.sourceUp,
    completedAt: new Date(snapshot.completedAtMs).toISOString(),
    totals: usageTotals(snapshot.buckets),
    buckets: snapshot.buckets.map(bucketJson),
  }
}
