import { randomBytes } from 'node:crypto'
import { open, readFile, rename, rm } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { type Static, Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { MINIO_SIZE_RANGES, MINIO_VERSION_RANGES, OBJECT_SIZE_BOUNDS } from './size-ranges.js'
import type { UsageSnapshot } from './snapshot.js'
import type { BucketUsage } from './sources/types.js'

/**
 * STATE_FILE: the last snapshot on disk, so a restart serves figures at once. Written atomically
 * (a temporary file in the same folder, flushed, then renamed over the old one), so a crash leaves
 * the old file or the new one, never half of one. Read with a schema: anything that is not a
 * snapshot of this format version (corrupt, truncated, another program's file, histogram bounds
 * that changed) is refused with a reason, never trusted.
 */

const FORMAT = 'objstore-exporter/usage-snapshot'
const FORMAT_VERSION = 1

const Counts = (length: number) =>
  Type.Array(Type.Number({ minimum: 0 }), { minItems: length, maxItems: length })
const Seconds = Type.Number()

const BucketUsageSchema = Type.Object({
  bytes: Type.Number({ minimum: 0 }),
  objects: Type.Number({ minimum: 0 }),
  sizeHistogram: Type.Optional(Counts(OBJECT_SIZE_BOUNDS.length + 1)),
  sizeRanges: Type.Optional(Counts(MINIO_SIZE_RANGES.length)),
  newestModifiedSeconds: Type.Optional(Seconds),
  oldestModifiedSeconds: Type.Optional(Seconds),
  storageClassBytes: Type.Optional(Type.Record(Type.String(), Type.Number({ minimum: 0 }))),
  versions: Type.Optional(
    Type.Object({
      versions: Type.Number({ minimum: 0 }),
      deleteMarkers: Type.Number({ minimum: 0 }),
      noncurrentBytes: Type.Number({ minimum: 0 }),
      versionRanges: Counts(MINIO_VERSION_RANGES.length),
    }),
  ),
  multipart: Type.Optional(
    Type.Object({ incomplete: Type.Number({ minimum: 0 }), oldestInitiatedSeconds: Type.Optional(Seconds) }),
  ),
  quotaBytes: Type.Optional(Type.Number({ minimum: 0 })),
  unreadableEntries: Type.Optional(Type.Number({ minimum: 0 })),
})

const StateFileSchema = Type.Object({
  format: Type.Literal(FORMAT),
  version: Type.Literal(FORMAT_VERSION),
  snapshot: Type.Object({
    sourceName: Type.String(),
    sourceId: Type.String(),
    sourceUp: Type.Boolean(),
    completedAtMs: Type.Number(),
    buckets: Type.Array(
      Type.Object({
        name: Type.String(),
        usage: Type.Optional(BucketUsageSchema),
        scanSuccess: Type.Boolean(),
        scanDurationSeconds: Type.Number({ minimum: 0 }),
        lastSuccessSeconds: Type.Optional(Seconds),
      }),
    ),
  }),
})

// The schema must describe the snapshot types: a stored snapshot is a snapshot, and every field of
// BucketUsage is in the schema. These fail to compile if the two drift apart.
type StoredSnapshot = Static<typeof StateFileSchema>['snapshot']
type Unstored = Exclude<keyof BucketUsage, keyof Static<typeof BucketUsageSchema>>
const schemaMatches: [
  StoredSnapshot extends UsageSnapshot ? true : false,
  [Unstored] extends [never] ? true : false,
] = [true, true]
void schemaMatches

export type StateLoad =
  | { readonly status: 'loaded'; readonly snapshot: UsageSnapshot }
  | { readonly status: 'absent' }
  | { readonly status: 'ignored'; readonly reason: string }

/** Reads the state file written for `sourceId`; anything else comes back as 'ignored' with a reason. */
export async function loadState(path: string, sourceId: string): Promise<StateLoad> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'absent' }
    return { status: 'ignored', reason: `cannot read it: ${(error as Error).message}` }
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    return { status: 'ignored', reason: `not valid JSON (${(error as Error).message})` }
  }
  if (!Value.Check(StateFileSchema, parsed)) {
    const first = Value.Errors(StateFileSchema, parsed).First()
    const where = first ? `${first.path || '/'}: ${first.message}` : 'unknown shape'
    return {
      status: 'ignored',
      reason: `not a usage snapshot of format ${FORMAT} v${FORMAT_VERSION} (${where})`,
    }
  }
  if (parsed.snapshot.sourceId !== sourceId) {
    return {
      status: 'ignored',
      reason: `written for another source (${parsed.snapshot.sourceId}), not ${sourceId}`,
    }
  }
  return { status: 'loaded', snapshot: parsed.snapshot }
}

/** Serialising gives the event loop back after this long (10,000 buckets take some 50 ms in all). */
const SLICE_MS = 8

/**
 * Writes the snapshot atomically: temporary file, fsync, rename. Serialised bucket by bucket in
 * slices, written as it goes, so a large snapshot never holds the event loop for long.
 */
export async function saveState(path: string, snapshot: UsageSnapshot): Promise<void> {
  const temporary = join(dirname(path), `.${randomBytes(6).toString('hex')}.usage-state.tmp`)
  const handle = await open(temporary, 'w', 0o600)
  try {
    for await (const text of serialise(snapshot)) await handle.write(text, null, 'utf8')
    await handle.datasync()
  } catch (error) {
    await handle.close()
    await rm(temporary, { force: true })
    throw error
  }
  await handle.close()
  try {
    await rename(temporary, path)
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
}

/** The file's JSON in pieces of about SLICE_MS of work each; joined, exactly JSON.stringify's. */
async function* serialise(snapshot: UsageSnapshot): AsyncGenerator<string> {
  const { buckets, ...rest } = snapshot
  // `buckets` last, so the document ends in `"buckets":[]}}`: the records go between the brackets.
  const outline = JSON.stringify({
    format: FORMAT,
    version: FORMAT_VERSION,
    snapshot: { ...rest, buckets: [] },
  })
  let text = outline.slice(0, -3)
  let sliceStart = performance.now()
  for (let index = 0; index < buckets.length; index++) {
    text += `${index ? ',' : ''}${JSON.stringify(buckets[index])}`
    if (performance.now() - sliceStart >= SLICE_MS) {
      yield text
      text = ''
      sliceStart = performance.now()
    }
  }
  yield `${text}${outline.slice(-3)}`
}
