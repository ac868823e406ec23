import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { UsageSnapshot } from '../../src/snapshot/snapshot.js'
import { figuresOf } from '../../src/snapshot/stored-records.js'
import { scratchFolder } from './scratch.js'

/**
 * A state file as one document, the shape of format version 1 (`{format, version, snapshot: {...,
 * buckets}}`), for tests to edit as a hand or another program could, and write back in either
 * format: version 2's lines (a header, a record a line, the end line) or version 1's one document.
 */
export interface StateDocument {
  format: string
  version: number
  snapshot: { completedAtMs: number; buckets: Array<Record<string, unknown>>; [key: string]: unknown }
}

export async function readStateDocument(path: string): Promise<StateDocument> {
  const lines = (await readFile(path, 'utf8')).split('\n').filter((line) => line !== '')
  const header = JSON.parse(lines[0] ?? '')
  const buckets = lines.slice(1, -1).map((line) => JSON.parse(line))
  return { ...header, snapshot: { ...header.snapshot, buckets } }
}

/** Version 2's lines; the end line counts `records` (the records written, unless given). */
export function stateLines(document: StateDocument, records = document.snapshot.buckets.length): string {
  const { buckets, ...outline } = document.snapshot
  const header = JSON.stringify({ format: document.format, version: 2, snapshot: outline })
  const lines = buckets.map((record) => JSON.stringify(record))
  return `${[header, ...lines, JSON.stringify({ end: true, records })].join('\n')}\n`
}

/** Version 1's one document. */
export function legacyStateText(document: StateDocument): string {
  const { buckets, ...outline } = document.snapshot
  return JSON.stringify({ format: document.format, version: 1, snapshot: { ...outline, buckets } })
}

export async function writeStateDocument(path: string, document: StateDocument): Promise<void> {
  await writeFile(path, stateLines(document))
}

/** A folder with DATA_DIR (one bucket, `alpha`, of 1,234 bytes) inside, readable by anyone. */
export async function storeFolder(t: Parameters<typeof scratchFolder>[0], prefix: string) {
  const root = await scratchFolder(t, prefix)
  // mkdtemp makes it 0700; an exporter run as another user must get in.
  await chmod(root, 0o755)
  const data = join(root, 'data')
  await mkdir(join(data, 'alpha'), { recursive: true })
  await writeFile(join(data, 'alpha', 'one'), Buffer.alloc(1_234))
  return { root, data }
}

/**
 * `snapshot` with every record's figures as a property, as a round makes them: a loaded snapshot's
 * records keep theirs as their line (read with figuresOf), which a comparison with the snapshot saved
 * must decode first.
 */
export function withFigures<T extends UsageSnapshot | undefined>(snapshot: T): T {
  if (snapshot === undefined) return snapshot
  return {
    ...snapshot,
    buckets: snapshot.buckets.map((record) => {
      const { name, ...rest } = record
      const usage = figuresOf(record)
      return usage === undefined ? record : { name, usage, ...rest }
    }),
  }
}

/** A load's result with its snapshot's figures decoded (withFigures). */
export function loadWithFigures<T extends { status: string; snapshot?: UsageSnapshot }>(result: T): T {
  return result.snapshot === undefined ? result : { ...result, snapshot: withFigures(result.snapshot) }
}
