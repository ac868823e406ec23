import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { closeSync, openSync } from 'node:fs'

/**
 * A filesystem that never answers, mounted at an existing empty folder: what a dead NFS server
 * behind a hard mount looks like to a process. It is a FUSE mount whose server end (an open
 * /dev/fuse) nobody reads, so the kernel queues every request on it (lookup, getattr, readdir) and
 * the calling thread waits in the kernel, killable only by SIGKILL. release() closes that end: the
 * kernel aborts the connection, every waiting call returns ENOTCONN, and the folder is unmounted.
 * Needs root (or CAP_SYS_ADMIN) and /dev/fuse; without them, the reason instead.
 */
export interface HungMount {
  release(): Promise<void>
}

export async function mountHungFilesystem(mountPoint: string): Promise<HungMount | string> {
  let fuse: number
  try {
    fuse = openSync('/dev/fuse', 'r+')
  } catch (error) {
    return `no /dev/fuse: ${(error as Error).message}`
  }
  const mount = spawn(
    'mount',
    ['-t', 'fuse', '-o', 'fd=3,rootmode=40000,user_id=0,group_id=0', 'objstore-hung', mountPoint],
    { stdio: ['ignore', 'ignore', 'pipe', fuse] },
  )
  let stderr = ''
  mount.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const [code] = (await Promise.race([
    once(mount, 'exit'),
    once(mount, 'error').then(([error]) => [`${(error as Error).message}`]),
  ])) as [number | string | null]
  if (code !== 0) {
    closeSync(fuse)
    return `mount -t fuse failed (${code}): ${stderr.trim()}`
  }
  let released = false
  return {
    async release() {
      if (released) return
      released = true
      closeSync(fuse)
      const umount = spawn('umount', [mountPoint], { stdio: 'ignore' })
      await once(umount, 'exit')
    },
  }
}
