/*
 * The `hidden` group's part of the record: what a listing of current objects hides, kept inside
 * the `versions` and `multipart` parts of the record (the state file's shape, older than this
 * folder), whose figures spread these properties in. Here once: their bounds, how two records
 * combine them, and an example of each.
 */
import type { Static, TObject } from '@sinclair/typebox'
import { AGE_BANDS, ageCounts } from '../age/bands.js'
import type { Frozen } from '../deep-readonly.js'
import type { RecordParts } from '../types.js'

const ADDED = { additive: true } as const

/** Its properties of the `versions` part: noncurrent versions per age band, expired delete markers. */
export function hiddenVersionProperties({ Type, Count }: Pick<RecordParts, 'Type' | 'Count'>) {
  const AgeCounts = Type.Array(Count, { minItems: AGE_BANDS.length, maxItems: AGE_BANDS.length })
  return {
    /**
     * Noncurrent versions' bytes and count per AGE_BANDS band of how long they have been
     * noncurrent: since their successor (the next newer entry of the key, a delete marker
     * included) was written.
     */
    noncurrentAgeBytes: Type.Optional(AgeCounts),
    noncurrentAgeVersions: Type.Optional(AgeCounts),
    /** Keys whose only entry is a delete marker ("expired object delete markers"). */
    expiredDeleteMarkers: Type.Optional(Count),
  }
}

/** Its properties of the `multipart` part: the bytes of incomplete uploads' parts, the stale ones. */
export function hiddenMultipartProperties({ Type, Count }: Pick<RecordParts, 'Type' | 'Count'>) {
  return {
    /** Bytes of the parts of the uploads that were sized (ListParts, a bounded number per bucket). */
    bytes: Type.Optional(Count),
    /** Uploads not sized: past the per-bucket bound, or gone before their parts were listed. */
    unsized: Type.Optional(Count),
    /** Uploads initiated more than MULTIPART_STALE_DAYS before the scan started, and their sized bytes. */
    stale: Type.Optional(Count),
    staleBytes: Type.Optional(Count),
  }
}

export type HiddenVersionValues = Frozen<Partial<Static<TObject<ReturnType<typeof hiddenVersionProperties>>>>>
export type HiddenMultipartValues = Frozen<
  Partial<Static<TObject<ReturnType<typeof hiddenMultipartProperties>>>>
>

/** How two records combine them: all are counts, added. */
export const HIDDEN_VERSION_COMBINE = {
  noncurrentAgeBytes: { ...ADDED, says: 'noncurrent bytes and versions per age band' },
  noncurrentAgeVersions: { ...ADDED, says: 'noncurrent bytes and versions per age band' },
  expiredDeleteMarkers: { ...ADDED, says: 'expired delete markers' },
} as const
export const HIDDEN_MULTIPART_COMBINE = {
  bytes: { ...ADDED, says: 'their bytes' },
  unsized: { ...ADDED, says: 'unsized uploads' },
  stale: { ...ADDED, says: 'stale uploads and their bytes' },
  staleBytes: { ...ADDED, says: 'stale uploads and their bytes' },
} as const

/** Every property with a value, for the docs' reference bucket. */
export function hiddenVersionExample() {
  return { noncurrentAgeBytes: ageCounts(), noncurrentAgeVersions: ageCounts(), expiredDeleteMarkers: 0 }
}
export const HIDDEN_MULTIPART_EXAMPLE = { bytes: 0, unsized: 0, stale: 0, staleBytes: 0 } as const
