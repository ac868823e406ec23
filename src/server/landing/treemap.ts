import type { BucketRecord } from '../../snapshot/snapshot.js'
import { figuresOf, measuredBytes } from '../../snapshot/stored-records.js'
import { escapeHtml, formatBytes, formatCount, percent } from './format.js'
import { type Rect, squarify, type Tile } from './squarify.js'

/** Buckets drawn as tiles of their own; the rest of those listed make one "others" tile. */
export const TREEMAP_BUCKETS = 50
/** Prefixes drawn inside a bucket's tile; the bucket's other keys make one tile. */
const TREEMAP_PREFIXES = 8
/** The drawing's size in SVG units (CSS pixels when the page is 60rem wide). */
const WIDTH = 960
const HEIGHT = 480
/** Colours: classes c0-c9 in the page's style. */
const PALETTE_SIZE = 10
/** A label needs this much room: about 7 units a character at the page's 12px. */
const CHAR_WIDTH = 7
const LABEL_HEIGHT = 15

export interface TreemapInput {
  /** The largest buckets, largest first (at most TREEMAP_BUCKETS). */
  readonly largest: readonly BucketRecord[]
  /** How many buckets, and their bytes, the drawing covers (the largest included). */
  readonly buckets: number
  readonly bytes: number
  /** Blanks secrets out of a store-given text (escaped for HTML here, after cutting). */
  readonly redact: (value: string) => string
}

type Piece = { readonly kind: 'bucket'; readonly record: BucketRecord } | { readonly kind: 'others' }

/**
 * Where the bytes went, as a squarified treemap in SVG: a tile per bucket of area proportional to
 * its bytes, the largest TREEMAP_BUCKETS and one tile for the rest, and inside a bucket its
 * largest prefixes where they are measured (BUCKET_METRICS=prefixes). At most
 * TREEMAP_BUCKETS x (TREEMAP_PREFIXES + 2) + 1 rectangles whatever the store holds; no script:
 * each tile's <title> is its tooltip.
 */
export function renderTreemap(input: TreemapInput): string {
  const { redact } = input
  const text = (value: string) => escapeHtml(redact(value))
  const shownBytes = input.largest.reduce((sum, record) => sum + (measuredBytes(record) ?? 0), 0)
  const others = { count: input.buckets - input.largest.length, bytes: Math.max(0, input.bytes - shownBytes) }
  const pieces: { item: Piece; value: number }[] = input.largest.map((record) => ({
    item: { kind: 'bucket', record },
    value: measuredBytes(record) ?? 0,
  }))
  if (others.count > 0) pieces.push({ item: { kind: 'others' }, value: others.bytes })
  const tiles = squarify(pieces, { x: 0, y: 0, width: WIDTH, height: HEIGHT })
  if (tiles.length === 0)
    return '<p class="note" id="treemap-empty">No bytes measured yet: nothing to draw.</p>'
  const share = (bytes: number) => percent(input.bytes > 0 ? bytes / input.bytes : 0)
  const drawn = tiles.map((tile, index) => {
    if (tile.item.kind === 'others') {
      const title = `${formatCount(others.count)} other bucket(s): ${formatBytes(tile.value)} (${formatCount(tile.value)} bytes), ${share(tile.value)}`
      return `<g class="others" data-buckets="${others.count}" data-bytes="${tile.value}">${rect(tile, 'tile others', title)}${label(tile, 'others', redact)}</g>`
    }
    const { record } = tile.item
    const name = text(record.name)
    const title = `${name}: ${formatBytes(tile.value)} (${formatCount(tile.value)} bytes), ${share(tile.value)}`
    return `<g class="bucket" data-bucket="${name}" data-bytes="${tile.value}">${rect(tile, `tile c${index % PALETTE_SIZE}`, title)}${renderPrefixes(record, tile, text)}${label(tile, record.name, redact)}</g>`
  })
  return `<svg class="treemap" role="img" aria-labelledby="treemap-title" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" data-bytes="${input.bytes}">
<title id="treemap-title">Bytes by bucket: ${formatCount(input.buckets)} bucket(s), ${formatBytes(input.bytes)}</title>
${drawn.join('\n')}
</svg>`
}

/** A bucket's largest prefixes as tiles filling its own, its other keys as one more. */
function renderPrefixes(record: BucketRecord, bucket: Tile<Piece>, text: (value: string) => string): string {
  // Decodes a stored record's figures: for the few buckets drawn only.
  const figures = figuresOf(record)?.prefixes
  if (!figures || figures.rows.length === 0) return ''
  const rows = figures.rows.slice(0, TREEMAP_PREFIXES)
  const listed = rows.reduce((sum, row) => sum + row.bytes, 0)
  const rest = Math.max(0, bucket.value - listed)
  const items = rows.map((row) => ({ item: row.prefix as string | undefined, value: row.bytes }))
  if (rest > 0) items.push({ item: undefined, value: rest })
  const name = text(record.name)
  return squarify(items, bucket)
    .map((tile, index) => {
      const what = tile.item === undefined ? 'other keys' : `prefix ${text(tile.item)}`
      const title = `${name}, ${what}: ${formatBytes(tile.value)} (${formatCount(tile.value)} bytes)`
      const data = tile.item === undefined ? 'data-other-keys=""' : `data-prefix="${text(tile.item)}"`
      return `<rect class="prefix p${index % 2}" ${data} data-bytes="${tile.value}" ${geometry(tile)}><title>${title}</title></rect>`
    })
    .join('')
}

function rect(tile: Rect, className: string, title: string): string {
  return `<rect class="${className}" ${geometry(tile)}><title>${title}</title></rect>`
}

function geometry(tile: Rect): string {
  return `x="${round(tile.x)}" y="${round(tile.y)}" width="${round(tile.width)}" height="${round(tile.height)}"`
}

/** The tile's name at its top left, cut to fit, or nothing where it would not fit. */
function label(tile: Rect, name: string, redact: (value: string) => string): string {
  const room = Math.floor((tile.width - 6) / CHAR_WIDTH)
  if (room < 3 || tile.height < LABEL_HEIGHT + 2) return ''
  // Cut in code points after the secrets are blanked (a cut secret would no longer be found), and
  // before escaping (a cut would split an entity).
  const characters = [...redact(name)]
  const shown = characters.length <= room ? characters.join('') : `${characters.slice(0, room - 1).join('')}…`
  return `<text x="${round(tile.x + 4)}" y="${round(tile.y + LABEL_HEIGHT - 2)}">${escapeHtml(shown)}</text>`
}

function round(value: number): string {
  return String(Math.round(value * 100) / 100)
}
