/**
 * The squarified treemap layout (Bruls, Huizing and van Wijk, "Squarified Treemaps", 2000): areas
 * proportional to values, laid in rows along the shorter side of what is left, a row growing while
 * that keeps its worst aspect ratio from getting worse, so tiles stay near square and readable.
 */

export interface Rect {
  readonly x: number
  readonly y: number
  readonly width: number
  readonly height: number
}

export interface Tile<T> extends Rect {
  readonly item: T
  readonly value: number
}

/**
 * Tiles for `items` filling `rect`, each of area value / (sum of values) of it. Items of value 0
 * or less get no tile. Order: largest first (ties keep the items' order).
 */
export function squarify<T>(
  items: readonly { readonly item: T; readonly value: number }[],
  rect: Rect,
): Tile<T>[] {
  const kept = items.filter((entry) => entry.value > 0 && Number.isFinite(entry.value))
  const ordered = kept.map((entry, index) => ({ entry, index }))
  ordered.sort((a, b) => b.entry.value - a.entry.value || a.index - b.index)
  const total = ordered.reduce((sum, { entry }) => sum + entry.value, 0)
  if (total <= 0 || rect.width <= 0 || rect.height <= 0) return []
  const scale = (rect.width * rect.height) / total
  const tiles: Tile<T>[] = []
  let free: Rect = rect
  let row: { item: T; value: number; area: number }[] = []
  let rowArea = 0
  for (let index = 0; index < ordered.length; index++) {
    const { entry } = ordered[index] as (typeof ordered)[number]
    const area = entry.value * scale
    const side = Math.min(free.width, free.height)
    if (row.length === 0 || worst(row, rowArea, side) >= worstWith(row, rowArea, area, side)) {
      row.push({ item: entry.item, value: entry.value, area })
      rowArea += area
      continue
    }
    free = layRow(row, rowArea, free, tiles, false)
    row = [{ item: entry.item, value: entry.value, area }]
    rowArea = area
  }
  if (row.length > 0) layRow(row, rowArea, free, tiles, true)
  return tiles
}

/** The worst aspect ratio of a row of areas summing to `sum` laid along a side of `side`. */
function worst(row: readonly { area: number }[], sum: number, side: number): number {
  let largest = 0
  let smallest = Number.POSITIVE_INFINITY
  for (const { area } of row) {
    if (area > largest) largest = area
    if (area < smallest) smallest = area
  }
  return ratio(largest, smallest, sum, side)
}

function worstWith(row: readonly { area: number }[], sum: number, area: number, side: number): number {
  let largest = area
  let smallest = area
  for (const entry of row) {
    if (entry.area > largest) largest = entry.area
    if (entry.area < smallest) smallest = entry.area
  }
  return ratio(largest, smallest, sum + area, side)
}

function ratio(largest: number, smallest: number, sum: number, side: number): number {
  const sideSquared = side * side
  const sumSquared = sum * sum
  return Math.max((sideSquared * largest) / sumSquared, sumSquared / (sideSquared * smallest))
}

/**
 * Lays `row` along the shorter side of `free`, appends its tiles and returns what is left. The
 * last row takes all that is left, so rounding leaves no sliver.
 */
function layRow<T>(
  row: readonly { item: T; value: number; area: number }[],
  rowArea: number,
  free: Rect,
  tiles: Tile<T>[],
  last: boolean,
): Rect {
  const alongWidth = free.width < free.height
  const side = alongWidth ? free.width : free.height
  const thickness = last ? (alongWidth ? free.height : free.width) : rowArea / side
  let offset = 0
  row.forEach((entry, index) => {
    const length = index === row.length - 1 ? side - offset : entry.area / thickness
    tiles.push(
      alongWidth
        ? {
            item: entry.item,
            value: entry.value,
            x: free.x + offset,
            y: free.y,
            width: length,
            height: thickness,
          }
        : {
            item: entry.item,
            value: entry.value,
            x: free.x,
            y: free.y + offset,
            width: thickness,
            height: length,
          },
    )
    offset += length
  })
  return alongWidth
    ? { x: free.x, y: free.y + thickness, width: free.width, height: free.height - thickness }
    : { x: free.x + thickness, y: free.y, width: free.width - thickness, height: free.height }
}
