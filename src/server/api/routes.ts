import type { FastifyInstance } from 'fastify'
import type { SecretRedactor } from '../../logging/secret-redactor.js'
import type { RoundProgressView } from '../../scanning/round-progress.js'
import { bucketJson } from '../../snapshot/snapshot-json.js'
import { VERSION } from '../../version.js'
import { parseBucketFilter, viewBuckets } from '../bucket-view.js'
import type { ExporterStatus } from '../status.js'
import { decimalQuery } from './decimal-query.js'
import {
  type BucketsQuery,
  BucketsQuerySchema,
  BucketsResponseSchema,
  DrivesResponseSchema,
  ErrorResponseSchema,
  StatusResponseSchema,
} from './schemas.js'

export interface ApiOptions {
  readonly status: ExporterStatus
  /** Blanks the secrets (in any encoding) out of any error text shown. */
  readonly redactor: SecretRedactor
}

/** The running round for /api/v1/status; null between rounds. */
function runningScan(progress: RoundProgressView | undefined, scrub: (text: string) => string) {
  if (!progress) return null
  const round = (value: number) => Math.round(value * 10) / 10
  return {
    startedAt: new Date(progress.startedAtMs).toISOString(),
    phase: progress.phase,
    buckets: progress.buckets ?? null,
    bucketsDone: progress.bucketsDone,
    failedBuckets: progress.failed,
    objects: progress.objects,
    bytes: progress.bytes,
    requests: progress.requests ?? null,
    elapsedSeconds: round(progress.elapsedSeconds),
    objectsPerSecond: round(progress.objectsPerSecond),
    inProgress: progress.inProgress.map(scrub),
    bucketsInProgress: progress.inProgressCount,
  }
}

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString())
const TAGS = ['api']

/**
 * /api/v1/buckets, /api/v1/drives and /api/v1/status: JSON from what /metrics serves (the last
 * usage snapshot, the drives as the last scrape found them), never I/O of their own. Behind the
 * same bearer token and TLS as every non-probe route (the plugins apply to all of them).
 */
export async function apiRoutes(app: FastifyInstance, options: ApiOptions): Promise<void> {
  const { status } = options
  const scrub = options.redactor.redact

  app.get<{ Querystring: BucketsQuery }>(
    '/api/v1/buckets',
    {
      schema: {
        tags: TAGS,
        summary: 'Buckets of the last usage snapshot, sorted and filtered',
        querystring: BucketsQuerySchema,
        response: { 200: BucketsResponseSchema, 400: ErrorResponseSchema, 503: ErrorResponseSchema },
      },
      preValidation: decimalQuery(BucketsQuerySchema),
    },
    async (request, reply) => {
      const snapshot = status.usage()
      if (!snapshot)
        return reply.code(503).send({
          statusCode: 503,
          error: 'Service Unavailable',
          message: 'no usage snapshot yet: the first scan is running',
        })
      const parsed = parseBucketFilter(request.query, 'name')
      if ('problem' in parsed)
        return reply.code(400).send({ statusCode: 400, error: 'Bad Request', message: parsed.problem })
      // Only the rows returned are turned into JSON: a record loaded from the state file decodes its figures to be.
      const view = viewBuckets(snapshot.buckets, parsed.filter, 0, request.query.limit ?? 1000)
      return {
        source: snapshot.sourceName,
        sourceUp: snapshot.sourceUp,
        completedAt: new Date(snapshot.completedAtMs).toISOString(),
        matched: view.matched,
        totals: view.totals,
        buckets: view.rows.map(bucketJson),
      }
    },
  )

  app.get(
    '/api/v1/drives',
    {
      schema: {
        tags: TAGS,
        summary: 'Each drive as the last scrape found it',
        response: { 200: DrivesResponseSchema },
      },
    },
    async () => ({
      drives: status.drives().map(({ path, state }) => {
        if (state === undefined) return { path, state: 'not probed yet' as const }
        if (!state.online) return { path, state: 'offline' as const, reason: scrub(state.reason) }
        const { totalBytes, usedBytes, freeBytes, totalInodes, freeInodes } = state.capacity
        return { path, state: 'online' as const, totalBytes, usedBytes, freeBytes, totalInodes, freeInodes }
      }),
    }),
  )

  app.get(
    '/api/v1/status',
    {
      schema: {
        tags: TAGS,
        summary: 'What runs, the source, the last and next scan',
        response: { 200: StatusResponseSchema },
      },
    },
    async () => {
      const snapshot = status.usage()
      const waitingFor = status.waitingFor()
      const failure = status.sourceFailure()
      return {
        version: VERSION,
        startedAt: new Date(status.startedAtMs).toISOString(),
        ready: waitingFor.length === 0,
        waitingFor: [...waitingFor],
        source: status.source,
        sourceUp: snapshot ? snapshot.sourceUp : null,
        sourceError: failure === undefined ? null : scrub(failure),
        lastScanAt: iso(snapshot?.completedAtMs),
        nextScanAt: iso(status.nextScanAtMs()),
        scanIntervalSeconds: status.scanIntervalSeconds,
        buckets: snapshot?.buckets.length ?? 0,
        failedBuckets: snapshot?.buckets.filter((record) => !record.scanSuccess).length ?? 0,
        runningScan: runningScan(status.scanProgress?.(), scrub),
        collectors: status.collectors().map((outcome) => ({
          name: outcome.name,
          state: outcome.state,
          ...(outcome.error === undefined ? {} : { error: scrub(outcome.error) }),
          lastRunAt: iso(outcome.lastRunAtMs),
        })),
      }
    },
  )
}
