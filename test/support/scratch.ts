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

/**
 * A path as bytes: `first`, then each part after a slash, a part given as numbers being the raw
 * bytes of a name (one that is not UTF-8, which a string cannot spell).
 */
export function bytePath(first: string, ...parts: readonly (string | readonly number[])[]): Buffer {
  return Buffer.concat([
    Buffer.from(first),
    ...parts.flatMap((part) => [
      Buffer.from('/'),
      typeof part === 'string' ? Buffer.from(part) : Buffer.from(part),
    ]),
  ])
}
