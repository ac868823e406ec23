/*
 * Current objects of zero bytes per bucket: placeholders, "folder" markers, truncated uploads. A
 * count the listing gives for free (every listed object has a size), asked for by users who clean
 * them up; a figure of its own folder, as src/figures/types.ts describes.
 */
import { describe, family } from '../../metrics/families.js'
import { defineFigure } from '../types.js'

export const emptyObjects = defineFigure({
  name: 'empty-objects',
  record: ({ Type, Count }) => ({
    /** Current objects of zero bytes (fs, s3: from the listing). */
    emptyObjects: Type.Optional(Count),
  }),
  fold: () => {
    let empty = 0
    return {
      add: (object) => {
        if (object.size === 0) empty++
      },
      finish: () => ({ emptyObjects: empty }),
    }
  },
  combine: { emptyObjects: { additive: true, says: 'empty objects' } },
  invariant: ({ emptyObjects }, { objects }) =>
    emptyObjects !== undefined && emptyObjects > objects
      ? `/usage: ${emptyObjects} empty objects among ${objects} objects`
      : undefined,
  example: { emptyObjects: 0 },
  families: describe('usage', {
    bucket_empty_objects: family(
      'gauge',
      ['bucket'],
      'Current objects of zero bytes in the bucket (fs, s3: from the listing).',
      'sizes',
    ),
  }),
  write: (out, bucket, { emptyObjects }) => {
    if (emptyObjects !== undefined) out.set('bucket_empty_objects', { bucket }, emptyObjects)
  },
})
