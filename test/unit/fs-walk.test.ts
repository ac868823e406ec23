import assert from 'node:assert/strict'
import { mkdir, stat, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { walkDirectory } from '../../src/scanner/fs-walk.js'
import { scratchFolder } from '../support/scratch.js'

test('expanding folds the files of a folder and hands its subfolders back unwalked', async (t) => {
  const root = await scratchFolder(t, 'objstore-walk-')
  await mkdir(join(root, 'a/deeper'), { recursive: true })
  await mkdir(join(root, 'b'))
  await writeFile(join(root, 'top'), Buffer.alloc(10))
  await writeFile(join(root, 'a/deeper/x'), Buffer.alloc(20))
  await symlink(join(root, 'top'), join(root, 'link'))
  const expanded = walkDirectory({ dirs: [root], expand: true, isBucketRoot: true })
  assert.equal(expanded.usage.objects, 1)
  assert.equal(expanded.usage.bytes, 10)
  assert.deepEqual([...expanded.subdirs].sort(), [join(root, 'a'), join(root, 'b')])
  const whole = walkDirectory({ dirs: [root], expand: false, isBucketRoot: true })
  assert.deepEqual([whole.usage.objects, whole.usage.bytes, whole.subdirs.length], [2, 30, 0])
})

test('a missing bucket folder is an error; a subfolder gone since it was listed is skipped', async (t) => {
  const root = await scratchFolder(t, 'objstore-walk-')
  assert.throws(() => walkDirectory({ dirs: [join(root, 'nope')], expand: true, isBucketRoot: true }), {
    code: 'ENOENT',
  })
  const gone = walkDirectory({ dirs: [join(root, 'nope')], expand: false, isBucketRoot: false })
  assert.equal(gone.usage.objects, 0)
})

test('a folder too large to read whole is read in batches, with the same figures', async (t) => {
  const root = await scratchFolder(t, 'objstore-walk-')
  // Long names make the folder pass the 1 MiB limit (ext4: 8 bytes + name per entry) with fewer files.
  const files = 12_000
  const name = 'n'.repeat(110)
  for (let start = 0; start < files; start += 1000) {
    await Promise.all(
      Array.from({ length: 1000 }, (_, offset) => writeFile(join(root, `${name}-${start + offset}`), 'x')),
    )
  }
  const size = (await stat(root)).size
  if (size <= 1024 * 1024) return t.skip(`this filesystem reports folder size ${size}, under the 1 MiB limit`)
  const result = walkDirectory({ dirs: [root], expand: false, isBucketRoot: true })
  assert.equal(result.usage.objects, files)
  assert.equal(result.usage.bytes, files)
})
