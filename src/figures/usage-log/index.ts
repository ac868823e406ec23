/*
 * A bucket's request counters from Ceph RGW's usage log (`rgw_enable_usage_log`; the opt-in
 * BUCKET_METRICS group `usage_log`): ops, successful ops and bytes sent and received per category
 * (RGW's operation names: put_obj, get_obj, list_bucket...). No listing gives them: the rgw source
 * reads the log once a scan and sets each bucket's counters whole on the record, carried on from
 * its previous record (counters.ts says how, and why they never go down when RGW trims its log);
 * so no fold step, and two parts of one bucket carry the same.
 */
import type { Static } from '@sinclair/typebox'
import { describe, family } from '../../metrics/families.js'
import type { Frozen } from '../deep-readonly.js'
import { defineFigure, type RecordParts, setWhole } from '../types.js'

/** RGW's category names are its operation names (some 70 in Ceph 16): lowercase words. */
export const USAGE_LOG_CATEGORY = /^[a-z0-9_]{1,64}$/
/** More categories than RGW has operations: a bucket's answer past this is cut (never unbounded). */
export const USAGE_LOG_MAX_CATEGORIES = 128
/** The newest hours whose figures are kept to compare the next scan's with. */
export const USAGE_LOG_RECENT_HOURS = 2

function figuresSchema({ Type, Count }: Pick<RecordParts, 'Type' | 'Count'>) {
  return Type.Object({ ops: Count, successfulOps: Count, bytesSent: Count, bytesReceived: Count })
}

function usageLogSchema(parts: Pick<RecordParts, 'Type' | 'Count'>) {
  const { Type, Count } = parts
  const Categories = Type.Record(Type.String({ pattern: USAGE_LOG_CATEGORY.source }), figuresSchema(parts), {
    maxProperties: USAGE_LOG_MAX_CATEGORIES,
    // A key the pattern misses is refused, not passed with its value unchecked (TypeBox's default).
    additionalProperties: false,
  })
  return Type.Object({
    /** The counters, per category: only ever go up. */
    totals: Categories,
    /** RGW's figures of the newest hours seen (epoch: the hour's start, seconds), newest last. */
    recent: Type.Array(Type.Object({ epoch: Count, categories: Categories }), {
      maxItems: USAGE_LOG_RECENT_HOURS,
    }),
  })
}

export type UsageLogFigures = Readonly<Static<ReturnType<typeof figuresSchema>>>
/** As a frozen record holds it (BucketUsage['usageLog']). */
export type UsageLog = Frozen<Static<ReturnType<typeof usageLogSchema>>>

const WHERE =
  "rgw with rgw_enable_usage_log and the admin cap usage=read; category: RGW's operation (put_obj, get_obj, list_bucket...). Starts at the sum of what the log holds and then grows by what RGW adds, so a trim of the log never lowers it"

/** Four series per operation a bucket saw: the docs' reference bucket saw five. */
const EXAMPLE_OPERATIONS = ['put_obj', 'get_obj', 'stat_obj', 'list_bucket', 'delete_obj']

export const usageLog = defineFigure({
  name: 'usage-log',
  record: (parts) => ({
    /** Request counters from RGW's usage log, when it is on and read. */
    usageLog: parts.Type.Optional(usageLogSchema(parts)),
  }),
  combine: {
    usageLog: setWhole(
      'the usage log counters (a sum over a changing set of buckets would not be a counter)',
      "either part's: the bucket's (a source sets it whole)",
    ),
  },
  example: {
    usageLog: {
      totals: Object.fromEntries(
        EXAMPLE_OPERATIONS.map((category) => [
          category,
          { ops: 0, successfulOps: 0, bytesSent: 0, bytesReceived: 0 },
        ]),
      ),
      recent: [],
    },
  },
  families: describe('usage', {
    bucket_usage_log_ops_total: family(
      'counter',
      ['bucket', 'category'],
      `Requests on the bucket per category, from RGW's usage log (${WHERE}).`,
      'usage_log',
    ),
    bucket_usage_log_successful_ops_total: family(
      'counter',
      ['bucket', 'category'],
      `Requests on the bucket per category that succeeded, from RGW's usage log (${WHERE}).`,
      'usage_log',
    ),
    bucket_usage_log_sent_bytes_total: family(
      'counter',
      ['bucket', 'category'],
      `Bytes RGW sent to clients for the bucket per category, from its usage log (${WHERE}).`,
      'usage_log',
    ),
    bucket_usage_log_received_bytes_total: family(
      'counter',
      ['bucket', 'category'],
      `Bytes RGW received from clients for the bucket per category, from its usage log (${WHERE}).`,
      'usage_log',
    ),
  }),
  // A bucket's counters, per category in name order; nothing when the log gave it none.
  write: (out, bucket, { usageLog }) => {
    const totals = usageLog?.totals
    if (!totals) return
    for (const category of Object.keys(totals).sort()) {
      const figures = totals[category]
      if (!figures) continue
      const labels = { bucket, category }
      out.set('bucket_usage_log_ops_total', labels, figures.ops)
      out.set('bucket_usage_log_successful_ops_total', labels, figures.successfulOps)
      out.set('bucket_usage_log_sent_bytes_total', labels, figures.bytesSent)
      out.set('bucket_usage_log_received_bytes_total', labels, figures.bytesReceived)
    }
  },
  keepsPlace: { family: 'user_usage_total_bytes', property: 'inventory' },
})
