import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A fresh temporary folder, removed when the test ends (whether it passed or not). */
export async function scratchFolder(
  t: { after: (fn: () => Promise<void>) => void },
  prefix = 'objstore-test-',
): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), prefix))
  t.after(() => rm(folder, { recursive: true, force: true }))
  return folder
}
