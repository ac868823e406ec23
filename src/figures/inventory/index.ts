/*
 * Which buckets are measured from an S3 Inventory (S3_INVENTORY_DESTINATION) instead of a listing,
 * and what was read: the inventory's configuration and format, its creation time (the figures are
 * as of then; bucket_scan_last_success_timestamp_seconds says the same), the files, bytes and rows
 * read, and the LIST requests a listing would have sent. A bucket without these series was listed.
 * No fold: the inventory reader sets the part (src/sources/s3/inventory/), a listing never does.
 */
import { describe, family } from '../../metrics/families.js'
import { defineFigure } from '../types.js'

export const inventory = defineFigure({
  name: 'inventory',
  record: ({ Type, Count }) => ({
    /** Present when the bucket's figures were folded from an S3 Inventory. */
    inventory: Type.Optional(
      Type.Object({
        /** The inventory configuration's id (its folder under the destination). */
        configuration: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._-]+$' }),
        format: Type.Union([Type.Literal('CSV'), Type.Literal('Parquet')]),
        /** The manifest.json folded and its MD5: a manifest already folded is not read again. */
        manifest: Type.String({ minLength: 1, maxLength: 2048 }),
        manifestMd5: Type.String({ pattern: '^[0-9a-f]{32}$' }),
        /** creationTimestamp: when the inventory's scan began, seconds since the epoch. */
        createdSeconds: Type.Number({ minimum: 946_684_800, maximum: 8.64e12 }),
        files: Count,
        /** Bytes of the data files read (compressed, as stored). */
        bytes: Count,
        /** Rows folded: objects, or versions and delete markers. */
        rows: Count,
      }),
    ),
  }),
  combine: {
    inventory: {
      additive: false,
      says: 'how the bucket was measured',
      parts: 'one inventory per bucket',
      merge: (a) => a,
    },
  },
  example: {
    inventory: {
      configuration: 'daily',
      format: 'CSV',
      manifest: 'inventories/photos/daily/2026-12-04T01-00Z/manifest.json',
      manifestMd5: '0123456789abcdef0123456789abcdef',
      createdSeconds: 1_796_346_000,
      files: 1,
      bytes: 1024,
      rows: 100,
    },
  },
  families: describe('usage', {
    bucket_inventory_info: family(
      'gauge',
      ['bucket', 'configuration', 'format'],
      'The bucket was measured from an S3 Inventory (S3_INVENTORY_DESTINATION), not listed: always 1. A bucket without this series was listed.',
      'scan',
    ),
    bucket_inventory_creation_timestamp_seconds: family(
      'gauge',
      ['bucket'],
      "When the inventory the bucket's figures come from was made (its creationTimestamp), seconds since the epoch: the figures are as of then.",
      'scan',
    ),
    bucket_inventory_files: family('gauge', ['bucket'], 'Data files of the inventory folded.', 'scan'),
    bucket_inventory_read_bytes: family(
      'gauge',
      ['bucket'],
      'Bytes of the inventory data files folded, as stored (compressed).',
      'scan',
    ),
    bucket_inventory_rows: family(
      'gauge',
      ['bucket'],
      'Rows of the inventory folded (objects, or versions and delete markers).',
      'scan',
    ),
    bucket_inventory_saved_list_requests: family(
      'gauge',
      ['bucket'],
      'LIST requests a whole listing of the bucket would send each scan, saved by reading its inventory: estimated as its pages of 1,000 entries (ceil(rows / 1000), at least 1), as ListObjectsV2 or ListObjectVersions pages; a listing split into key ranges (S3_LIST_RANGES) would send a few more. The bucket itself is sent no LIST request, but for the key ranges change events marked (incremental scans), which s3_requests_total counts.',
      'scan',
    ),
  }),
  write: (out, bucket, { inventory }) => {
    if (inventory === undefined) return
    out.set(
      'bucket_inventory_info',
      { bucket, configuration: inventory.configuration, format: inventory.format },
      1,
    )
    out.set('bucket_inventory_creation_timestamp_seconds', { bucket }, inventory.createdSeconds)
    out.set('bucket_inventory_files', { bucket }, inventory.files)
    out.set('bucket_inventory_read_bytes', { bucket }, inventory.bytes)
    out.set('bucket_inventory_rows', { bucket }, inventory.rows)
    out.set('bucket_inventory_saved_list_requests', { bucket }, listingPages(inventory.rows))
  },
})

/** A listing's page holds at most 1,000 entries (objects, or versions and delete markers). */
const LISTING_PAGE_ENTRIES = 1000

/** The pages a listing of `entries` takes: an empty bucket still answers one. */
const listingPages = (entries: number) => Math.max(1, Math.ceil(entries / LISTING_PAGE_ENTRIES))
