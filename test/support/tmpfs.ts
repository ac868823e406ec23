import { spawn } from 'node:child_process'
import { once } from 'node:events'

/**
 * A tmpfs mounted at an existing empty folder: a filesystem whose sparse files may be as large as
 * the kernel allows (8 EiB), where ext4 stops at 16 TiB. Needs root (or CAP_SYS_ADMIN); without
 * it, the reason instead. Its size (`16m`, as mount(8) takes it) is what statfs reports as its
 * total bytes, so files written there lower its free bytes by their size. release() unmounts it.
 */
export async function mountTmpfs(
  mountPoint: string,
  size = '16m',
): Promise<{ release(): Promise<void> } | string> {
  const run = async (command: string, args: readonly string[]): Promise<string | undefined> => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const [code] = (await Promise.race([
      once(child, 'exit'),
      once(child, 'error').then(([error]) => [(error as Error).message]),
    ])) as [number | string | null]
    return code === 0 ? undefined : `${command} failed (${code}): ${stderr.trim()}`
  }
  const failed = await run('mount', [
    '-t',
    'tmpfs',
    '-o',
    `size=${size},mode=0755`,
    'objstore-tmpfs',
    mountPoint,
  ])
  if (failed !== undefined) return failed
  let released = false
  return {
    async release() {
      if (released) return
      released = true
      await run('umount', [mountPoint])
    },
  }
}
