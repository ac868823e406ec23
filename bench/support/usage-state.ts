import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { saveState } from '../../src/snapshot/state-file.js'
import { type GeneratedSnapshot, generateSnapshot } from '../../test/support/usage-snapshots.js'

/**
 * A temporary DATA_DIR and a STATE_FILE holding a generated snapshot of `buckets` buckets with
 * every usage family (versions, multipart uploads, storage classes, quotas, the histogram), fresh,
 * so an exporter started on them serves it at once and does not scan before SCAN_INTERVAL_SECONDS.
 * With `filesPerBucket`, DATA_DIR also gets a folder per bucket, for real scans to publish anew.
 */
export interface UsageState {
  readonly folder: string
  readonly dataDir: string
  readonly stateFile: string
  readonly generated: GeneratedSnapshot
  remove(): void
}

export async function createUsageState(options: {
  buckets: number
  objectsPerBucket: number
  filesPerBucket?: number
}): Promise<UsageState> {
  const folder = mkdtempSync(join(tmpdir(), 'objstore-bench-state-'))
  try {
    const dataDir = join(folder, 'data')
    mkdirSync(dataDir)
    const generated = generateSnapshot({
      buckets: options.buckets,
      objectsPerBucket: options.objectsPerBucket,
      sourceName: 'fs',
      sourceId: `fs:${resolve(dataDir)}`,
      completedAtMs: Date.now(),
    })
    for (const record of generated.snapshot.buckets) {
      if (!options.filesPerBucket) break
      const bucket = join(dataDir, record.name)
      mkdirSync(bucket)
      for (let file = 0; file < options.filesPerBucket; file++) {
        writeFileSync(join(bucket, `object-${file}`), Buffer.alloc(file * 1000))
      }
    }
    const stateFile = join(folder, 'state.json')
    await saveState(stateFile, generated.snapshot)
    return {
      folder,
      dataDir,
      stateFile,
      generated,
      remove: () => rmSync(folder, { recursive: true, force: true }),
    }
  } catch (error) {
    rmSync(folder, { recursive: true, force: true })
    throw error
  }
}
