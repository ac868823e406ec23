import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3'
import { type RunningExporter, startExporter } from './exporter.js'
import type { RgwCluster } from './rgw-cluster.js'
import { MiB, rgwS3Client, rgwSourceEnv } from './rgw-scenario.js'
import { type SteadyWrites, startSteadyWrites } from './steady-writes.js'
import { mountTmpfs } from './tmpfs.js'

/**
 * A store filling up while Prometheus watches, for the forecast rules (scanned every second, as
 * test/support/e2e-rules.ts's windows expect):
 * - `filling`: the fs source on a 32 MiB tmpfs, its only drive, where a bucket (`incoming`) gains
 *   a 16 KiB file every 250 ms, so the drive's and the cluster's free bytes fall at a steady pace
 *   no other process on the machine moves;
 * - `quota`: the rgw source reading one RGW bucket (`filling-quota`, a 64 MiB bucket quota) that
 *   gains a 16 KiB object every 500 ms.
 * Both stop at a bound far beyond a test's length (24 MiB and 12 MiB: the tmpfs and the quota are
 * never full). A tmpfs needs root: without it the `filling` exporter is left out and
 * `driveSkipReason` says why (under CI=true, start-up throws instead).
 */
export const FILLING_BUCKET = 'incoming'
export const QUOTA_BUCKET = 'filling-quota'
export const QUOTA_BYTES = 64 * MiB
const WRITE_BYTES = 16 * 1024

export interface FillingStore {
  /** The exporters to scrape, by name, all under one job (one store, as the cluster rules assume). */
  readonly exporters: ReadonlyArray<readonly [string, RunningExporter]>
  /** Why there is no filling drive (no tmpfs without root); undefined when there is one. */
  readonly driveSkipReason: string | undefined
  /** The writers, to check they are still writing. */
  readonly writers: readonly SteadyWrites[]
  /** Stops the writers (before the exporters and RGW go). */
  stopWriting(): Promise<void>
  /** Unmounts the tmpfs (after the exporters are closed). */
  release(): Promise<void>
}

export async function startFillingStore(
  rgw: RgwCluster,
  mountPoint: string,
  env: Readonly<Record<string, string>>,
): Promise<FillingStore> {
  const exporters: Array<readonly [string, RunningExporter]> = []
  const writers: SteadyWrites[] = []
  const scanEverySecond = { SCAN_INTERVAL_SECONDS: '1', ...env }
  const client = rgwS3Client(rgw)

  await mkdir(mountPoint)
  const mounted = await mountTmpfs(mountPoint, '32m')
  const stopWriting = async () => {
    for (const writer of writers) await writer.stop()
    client.destroy()
  }
  const release = async () => {
    if (typeof mounted !== 'string') await mounted.release()
  }
  let driveSkipReason: string | undefined
  try {
    if (typeof mounted === 'string') {
      if (process.env.CI)
        throw new Error(`CI must be able to mount a tmpfs for the filling drive: ${mounted}`)
      driveSkipReason = `no filling drive: ${mounted}`
    } else {
      const folder = join(mountPoint, 'data', FILLING_BUCKET)
      await mkdir(folder, { recursive: true })
      const exporter = await startExporter({
        ...scanEverySecond,
        DATA_DIR: join(mountPoint, 'data'),
        DRIVES: mountPoint,
      })
      exporters.push(['filling', exporter])
      writers.push(
        startSteadyWrites((index) => writeFile(join(folder, `${index}.bin`), Buffer.alloc(WRITE_BYTES)), {
          everyMs: 250,
          maxWrites: (24 * MiB) / WRITE_BYTES,
        }),
      )
    }

    await client.send(new CreateBucketCommand({ Bucket: QUOTA_BUCKET }))
    await rgw.setBucketQuota(QUOTA_BUCKET, { maxBytes: QUOTA_BYTES })
    const quota = await startExporter(
      rgwSourceEnv(rgw, 'rgw', {
        ...scanEverySecond,
        BUCKETS_INCLUDE: QUOTA_BUCKET,
        RGW_USER_METRICS: 'false',
      }),
    )
    exporters.push(['quota', quota])
    writers.push(
      startSteadyWrites(
        async (index) => {
          await client.send(
            new PutObjectCommand({
              Bucket: QUOTA_BUCKET,
              Key: `part-${index}`,
              Body: Buffer.alloc(WRITE_BYTES),
            }),
          )
        },
        { everyMs: 500, maxWrites: (12 * MiB) / WRITE_BYTES },
      ),
    )
  } catch (error) {
    await stopWriting()
    for (const [, exporter] of exporters) await exporter.close()
    await release()
    throw error
  }
  return { exporters, driveSkipReason, writers, stopWriting, release }
}
