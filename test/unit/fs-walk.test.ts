import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { mkdir, stat, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { walkDirectory } from '../../src/scanner/fs-walk.js'
import { bucketFolder, bucketLabel } from '../../src/scanner/sources/fs.js'
import { bytePath, scratchFolder } from '../support/scratch.js'

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

test('names that are not UTF-8 are walked byte for byte; a path over PATH_MAX is counted, not fatal', async (t) => {
  const root = await scratchFolder(t, 'objstore-walk-')
  // Two names that decode to the same U+FFFD text, each its own file.
  writeFileSync(bytePath(root, [0x80]), Buffer.alloc(3))
  writeFileSync(bytePath(root, [0x81]), Buffer.alloc(4))
  mkdirSync(bytePath(root, [0xff, 0x2e]))
  writeFileSync(bytePath(root, [0xff, 0x2e], 'x'), Buffer.alloc(5))
  const walked = walkDirectory({
    dirs: [Buffer.from(root).toString('latin1')],
    expand: false,
    isBucketRoot: true,
  })
  assert.deepEqual([walked.usage.objects, walked.usage.bytes, walked.unreadable], [3, 12, 0])

  // A folder whose path is longer than PATH_MAX cannot be read by path: counted once, the rest folded.
  const long = `${root}/${'d'.repeat(250)}`.padEnd(4200, '/e')
  const tooLong = walkDirectory({
    dirs: [Buffer.from(root).toString('latin1'), long],
    expand: false,
    isBucketRoot: false,
  })
  assert.deepEqual([tooLong.usage.objects, tooLong.unreadable], [3, 1])
})

test('bucket labels: UTF-8 names are their own label; others are escaped, distinct and reversible', () => {
  const names = [
    Buffer.from('photos-2026'),
    Buffer.from('caf\u00e9 \u{1f600}'),
    Buffer.from([0x62, 0x80]),
    Buffer.from([0x62, 0x81]),
    Buffer.from([0x62, 0xc3]),
    Buffer.from([0xed, 0xa0, 0x80]), // an encoded surrogate: not UTF-8
    Buffer.from([0xc0, 0xaf]), // an overlong '/': not UTF-8
    Buffer.from('b\\x80'), // what reads as an escape, but is the name itself
    Buffer.from('b\\\\'),
    Buffer.from('back\\slash'),
  ]
  const labels = names.map(bucketLabel)
  assert.deepEqual(labels.slice(0, 4), ['photos-2026', 'caf\u00e9 \u{1f600}', 'b\\x80', 'b\\x81'])
  assert.equal(labels[7], 'b\\\\x80')
  assert.equal(labels[9], 'back\\slash', 'a backslash that reads as no escape is kept as it is')
  assert.equal(new Set(labels).size, names.length, `labels collide: ${labels.join(' ')}`)
  names.forEach((name, index) => {
    assert.deepEqual(bucketFolder(labels[index] as string), name)
  })
})
