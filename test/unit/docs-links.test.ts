import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { anchorsOf, brokenLinks, githubSlug, linksOf } from '../../scripts/markdown-links.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** README.md and every other page at the top, and every page under docs/. */
function pages(): string[] {
  const top = readdirSync(ROOT).filter((name) => name.endsWith('.md'))
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`)
  return [...top, ...docs]
}

test('every relative link of README.md and docs/*.md reaches a file, and its #anchor a heading', () => {
  const files = pages()
  assert.ok(files.includes('README.md') && files.includes('docs/configuration.md'), files.join(', '))
  assert.deepEqual(brokenLinks(ROOT, files), [])
})

test('the README links every page under docs/', () => {
  const readme = linksOf('README.md', readFileSync(join(ROOT, 'README.md'), 'utf8')).map(
    (link) => link.target.split('#')[0],
  )
  const docs = pages().filter((page) => page.startsWith('docs/'))
  assert.deepEqual(
    docs.filter((page) => !readme.includes(page)),
    [],
    'pages no reader of the README can find',
  )
})

test('anchors follow GitHub: lower case, punctuation dropped, spaces to hyphens, repeats numbered', () => {
  assert.equal(githubSlug('Sources (`BUCKETS_SOURCE`)'), 'sources-buckets_source')
  assert.equal(
    githubSlug("`BUCKETS_SOURCE=rgw`: usage from RGW's own counters"),
    'buckets_sourcergw-usage-from-rgws-own-counters',
  )
  assert.equal(githubSlug('Drives, S3 & RGW: a - b'), 'drives-s3--rgw-a---b')
  assert.equal(githubSlug('Größe über 1½ GiB'), 'größe-über-1-gib')
  assert.deepEqual(
    [...anchorsOf('### Add a log target (`LOG_TARGETS=<name>`)')],
    ['add-a-log-target-log_targetsname'],
  )
  const anchors = anchorsOf(
    [
      '# Faults',
      '```sh',
      '# not a heading',
      '```',
      '## Faults',
      '## Faults',
      '## [Linked](x.md) *title*',
      '<a id="custom"></a>',
    ].join('\n'),
  )
  assert.deepEqual([...anchors].sort(), ['custom', 'faults', 'faults-1', 'faults-2', 'linked-title'])
})

test('a missing page, a missing anchor, a link leaving the repository are reported; code is not a link', () => {
  const root = mkdtempSync(join(tmpdir(), 'links-'))
  try {
    mkdirSync(join(root, 'docs'))
    writeFileSync(join(root, 'docs', 'a.md'), '# A page\n\n## Second part\n')
    writeFileSync(join(root, 'notes.txt'), 'text\n')
    writeFileSync(
      join(root, 'README.md'),
      [
        '# Read me',
        '[ok](docs/a.md) [ok](docs/a.md#second-part) [ok](#read-me) [ok](notes.txt) [web](https://example.com/x.md)',
        '[gone](docs/b.md)',
        '[wrong anchor](docs/a.md#second)',
        '[own](#nothing)',
        '[out](../elsewhere.md)',
        '[text anchor](notes.txt#l1)',
        '`[in a span](docs/missing.md)`',
        '```md',
        '[in a fence](docs/missing.md)',
        '```',
        '[ref]: docs/c.md',
      ].join('\n'),
    )
    assert.deepEqual(brokenLinks(root, ['README.md', 'docs/a.md']), [
      'README.md:3: docs/b.md: no such file',
      'README.md:4: docs/a.md#second: no heading or anchor "second" in docs/a.md',
      'README.md:5: #nothing: no heading or anchor "nothing" in README.md',
      'README.md:6: ../elsewhere.md: leaves the repository',
      'README.md:7: notes.txt#l1: an anchor on something that is not a Markdown page',
      'README.md:12: docs/c.md: no such file',
    ])
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
})
