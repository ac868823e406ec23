import { Type } from '@sinclair/typebox'

/** The local data directory and the drives whose capacity is reported. */
export const drivesEnv = {
  DATA_DIR: Type.String({
    default: './data',
    minLength: 1,
    description:
      'Local data directory of `BUCKETS_SOURCE=fs` (one folder per bucket), created if missing; unused by remote sources.',
  }),
  DRIVES: Type.String({
    default: '',
    description:
      "Comma-separated drive paths to report capacity for; MinIO ellipsis syntax expands (`/mnt/disk{1...4}`). Empty: `DATA_DIR`'s filesystem for `fs`, no drive for `s3` and `rgw` (the exporter's own disk is not the store's capacity; cluster capacity families are then absent).",
  }),
  DRIVE_TIMEOUT_MS: Type.Integer({
    default: 2000,
    minimum: 1,
    maximum: 600000,
    description: 'How long one statfs may take before the drive is reported offline.',
  }),
  EC_PARITY: Type.Integer({
    default: 0,
    minimum: 0,
    maximum: 1024,
    description:
      'Erasure-code parity drives per set, for usable capacity (raw x data/(data+parity)); at most half the drives.',
  }),
}
