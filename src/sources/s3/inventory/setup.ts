import type { RequestCounter } from '../../request-counter.js'
import { createCheckedClient, type S3ClientOptions, type SendRequest } from '../client.js'
import { parseDestination } from './discovery.js'
import { InventoryReader, type InventorySettings } from './reader.js'

/** S3_INVENTORY_* as the s3 source is given them. */
export interface InventoryOptions {
  /** S3_INVENTORY_DESTINATION: `bucket/prefix`. */
  readonly destination: string
  readonly configuration: string
  readonly missing: InventorySettings['missing']
  /** S3_INVENTORY_MAX_FILE_BYTES: the bound on a data file's answer. */
  readonly maxFileBytes: number
  /** S3_INVENTORY_MAX_INFLATION: the most a gzip CSV file may inflate, times its size. */
  readonly maxInflation: number
}

/**
 * The reader of the destination's inventories: a client of its own, on the same endpoint with
 * the same keys and request counter, whose answers are bounded by S3_INVENTORY_MAX_FILE_BYTES
 * rather than S3_MAX_RESPONSE_BYTES (a data file is larger than any listing page).
 */
export function inventoryReader(
  connection: S3ClientOptions,
  options: InventoryOptions,
  counter: RequestCounter,
  send: SendRequest,
): InventoryReader | undefined {
  const destination = parseDestination(options.destination)
  if (!destination) return undefined
  const client = createCheckedClient({
    ...connection,
    maxResponseBytes: options.maxFileBytes,
    maxResponseSetting: 'S3_INVENTORY_MAX_FILE_BYTES',
    counter,
  })
  return new InventoryReader({
    client,
    settings: {
      destination,
      configuration: options.configuration,
      missing: options.missing,
      maxInflation: options.maxInflation,
    },
    send,
  })
}
