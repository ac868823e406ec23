import type { BucketRecord, UsageSnapshot } from '../../snapshot/snapshot.js'
import { figuresOf, measuredBytes, measuredObjects } from '../../snapshot/stored-records.js'
import { type BucketSortKey, type BucketView, viewBuckets } from '../bucket-view.js'
import { escapeHtml, formatAge, formatCount, percent, sizeHtml, timestamp } from './format.js'
import { apiHref, type ListState, PAGE_SIZE, pageHref } from './query.js'
import { renderTreemap, TREEMAP_BUCKETS } from './treemap.js'

/** Why a column is empty for every bucket of a source: the source does not give that figure. */
const NEWEST_NOT_GIVEN: Readonly<Record<string, string>> = {
  rgw: "RGW's admin API counts bytes and objects per bucket but gives no object times; the s3 source, which lists the objects, gives them (see docs/sources.md).",
}

export interface BucketListInput {
  readonly snapshot: UsageSnapshot
  /** The list asked for, or why the query was refused (and the filter's text as written, for the form). */
  readonly list: ListState | { readonly problem: string; readonly prefix?: string; readonly match?: string }
  readonly nowMs: number
  readonly redact: (value: string) => string
}

/**
 * Every bucket, a page of PAGE_SIZE at a time, sorted and filtered by links and a form that need
 * no script (the page's query, /api/v1/buckets's parameters), the totals of those matching, and
 * the treemap of where their bytes went. Cheap at 100,000 buckets: one pass each for the list and
 * the treemap in orders sorted once per snapshot (bucket-view.ts), and only the rows shown decoded.
 */
export function renderBucketList(input: BucketListInput): string {
  const { list } = input
  if ('problem' in list) {
    return `${filterForm(list.prefix, list.match, undefined)}
<p class="problem" id="query-problem">Not listed: ${escapeHtml(list.problem)}. <a href="/">All buckets</a>.</p>`
  }
  const { snapshot, nowMs } = input
  const text = (value: string) => escapeHtml(input.redact(value))
  const pages = (matched: number) => Math.max(1, Math.ceil(matched / PAGE_SIZE))
  const view = viewBuckets(snapshot.buckets, list.filter, (list.page - 1) * PAGE_SIZE, PAGE_SIZE)
  const largest = viewBuckets(
    snapshot.buckets,
    { ...list.filter, sort: 'bytes', order: 'desc' },
    0,
    TREEMAP_BUCKETS,
  )
  const filtered = list.prefix !== undefined || list.match !== undefined
  const newestNote = NEWEST_NOT_GIVEN[snapshot.sourceName]
  const rows = view.rows.map((record) => bucketRow(record, nowMs, text, newestNote !== undefined))
  const first = (list.page - 1) * PAGE_SIZE + 1
  const caption =
    view.matched === 0
      ? filtered
        ? 'No bucket matches.'
        : 'No buckets.'
      : view.rows.length === 0
        ? `Page ${formatCount(list.page)} is past the last, ${formatCount(pages(view.matched))}.`
        : `Buckets ${formatCount(first)} to ${formatCount(first + view.rows.length - 1)} of ${formatCount(view.matched)}${filtered ? ` matching (of ${formatCount(snapshot.buckets.length)})` : ''}.`
  return `${filterForm(list.prefix, list.match, list)}
<h3>Where the bytes went</h3>
<p class="note">Each tile's area is a bucket's bytes: the ${TREEMAP_BUCKETS} largest${filtered ? ' matching' : ''}, the rest as one tile; inside a bucket, its largest key prefixes where <code>BUCKET_METRICS=prefixes</code> measures them. Hover a tile for its figures.</p>
${renderTreemap({ largest: largest.rows, buckets: largest.matched, bytes: largest.totals.bytes, redact: input.redact })}
<h3>All buckets</h3>
<p class="note">The same list as JSON: <a href="${escapeHtml(apiHref(list))}">${escapeHtml(apiHref(list))}</a> (the API answers up to <code>limit</code> buckets at once).</p>
<table id="bucket-table">
<caption>${caption}</caption>
<thead><tr>${header('Bucket', 'name', list)}${header('Size', 'bytes', list)}${header('Objects', 'objects', list)}<th>Newest object</th><th>Last scan</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
${totalsRow(view, filtered)}
</table>
${newestNote === undefined ? '' : `<p class="note" id="newest-note">Newest object: not given by the <code>${text(snapshot.sourceName)}</code> source. ${escapeHtml(newestNote)}</p>`}
${pager(list, pages(view.matched))}`
}

function bucketRow(
  record: BucketRecord,
  nowMs: number,
  text: (value: string) => string,
  newestNotGiven: boolean,
): string {
  const bytes = measuredBytes(record)
  const objects = measuredObjects(record)
  const figures =
    bytes === undefined || objects === undefined
      ? '<td class="note">not measured</td><td class="note">not measured</td>'
      : `<td>${sizeHtml(bytes)}</td><td>${formatCount(objects)}</td>`
  return `<tr data-bucket="${text(record.name)}"><td><code>${text(record.name)}</code></td>${figures}<td>${newestCell(record, objects, nowMs, newestNotGiven)}</td><td class="state ${record.scanSuccess ? 'ok' : 'bad'}">${record.scanSuccess ? 'ok' : 'failed'}${rangesNote(record, nowMs)}</td></tr>`
}

/** A bucket with per-range subtotals: what its figures are as of (its stalest range), and its ranges. */
function rangesNote(record: BucketRecord, nowMs: number): string {
  const { ranges } = record
  if (!ranges) return ''
  return `<br><span class="note">as of ${timestamp(ranges.oldestListedSeconds * 1000, nowMs)}; ${formatCount(ranges.ranges)} ranges, ${formatCount(ranges.dirty)} dirty, ${percent(ranges.relistedRatio)} listed again</span>`
}

function newestCell(
  record: BucketRecord,
  objects: number | undefined,
  nowMs: number,
  notGiven: boolean,
): string {
  if (objects === undefined) return ''
  if (notGiven) return '<span class="note">not given</span>'
  if (objects === 0) return '<span class="note">no objects</span>'
  // Decodes a stored record's figures: for the rows of one page only.
  const newest = figuresOf(record)?.newestModifiedSeconds
  return newest === undefined ? '' : `${formatAge(nowMs / 1000 - newest)} ago`
}

/** A sortable column's header: a link to the list sorted by it, the other way round if it already is. */
function header(title: string, sort: BucketSortKey, list: ListState): string {
  const current = list.filter.sort === sort
  const natural = sort === 'name' ? 'asc' : 'desc'
  const order = current ? (list.filter.order === 'asc' ? 'desc' : 'asc') : natural
  const ariaSort = current ? ` aria-sort="${list.filter.order === 'asc' ? 'ascending' : 'descending'}"` : ''
  const arrow = current ? (list.filter.order === 'asc' ? ' ▲' : ' ▼') : ''
  return `<th${ariaSort}><a href="${escapeHtml(pageHref(list, { sort, order, page: 1 }))}" data-sort="${sort}">${title}${arrow}</a></th>`
}

function totalsRow(view: BucketView, filtered: boolean): string {
  return `<tfoot><tr class="totals"><th scope="row">${filtered ? 'All matching' : 'All'}: ${formatCount(view.totals.buckets)} bucket(s)</th><td>${sizeHtml(view.totals.bytes)}</td><td>${formatCount(view.totals.objects)}</td><td></td><td></td></tr></tfoot>`
}

function pager(list: ListState, last: number): string {
  if (last === 1 && list.page === 1) return ''
  const link = (page: number, rel: string, title: string) =>
    `<a href="${escapeHtml(pageHref(list, { page }))}" rel="${rel}">${title}</a>`
  const back =
    list.page > 1
      ? `${link(1, 'first', 'first')} · ${link(Math.min(list.page - 1, last), 'prev', 'previous')}`
      : ''
  const on = list.page < last ? `${link(list.page + 1, 'next', 'next')} · ${link(last, 'last', 'last')}` : ''
  return `<nav class="pager" id="pager">Page ${formatCount(list.page)} of ${formatCount(last)}${back || on ? ': ' : ''}${[back, on].filter(Boolean).join(' · ')}</nav>`
}

/** The filter form: a GET to / that the page's query parameters describe; no script. */
function filterForm(
  prefix: string | undefined,
  match: string | undefined,
  list: ListState | undefined,
): string {
  const sort = list?.filter.sort ?? 'bytes'
  const order = list?.filter.order ?? 'desc'
  const option = (value: string, title: string, chosen: string) =>
    `<option value="${value}"${value === chosen ? ' selected' : ''}>${title}</option>`
  return `<form method="get" action="/" id="bucket-filter" role="search">
<label>Name matches <input name="match" value="${escapeHtml(match ?? '')}" placeholder="a glob: logs-*, [a-m]*" maxlength="1024"></label>
<label>starts with <input name="prefix" value="${escapeHtml(prefix ?? '')}" maxlength="1024"></label>
<label>sorted by <select name="sort">${option('bytes', 'size', sort)}${option('objects', 'objects', sort)}${option('name', 'name', sort)}</select></label>
<select name="order" aria-label="order">${option('desc', 'descending', order)}${option('asc', 'ascending', order)}</select>
<button type="submit">Show</button>
</form>`
}
