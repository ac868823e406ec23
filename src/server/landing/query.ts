import { type Static, Type } from '@sinclair/typebox'
import { BucketsQuerySchema } from '../api/schemas.js'
import { type BucketFilter, type BucketSortKey, parseBucketFilter, type SortOrder } from '../bucket-view.js'

/** Buckets a page of the landing page lists. */
export const PAGE_SIZE = 100
/** The last page asked for that is answered (10,000,000 buckets at PAGE_SIZE). */
const MAX_PAGE = 100_000

// The API's own parameters (and their bounds), but `limit`: the page is cut into pages instead.
const { limit: _limit, ...filterProperties } = BucketsQuerySchema.properties

/**
 * The landing page's query: /api/v1/buckets's `sort`, `order`, `prefix` and `match`, validated by
 * the same schemas, and `page`. Unknown parameters are refused, as by the API.
 */
export const LandingQuerySchema = Type.Object(
  {
    ...filterProperties,
    page: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_PAGE, description: `Which page of ${PAGE_SIZE} buckets.` }),
    ),
  },
  { additionalProperties: false },
)
export type LandingQuery = Static<typeof LandingQuerySchema>

/** What the bucket list shows: the filter, as parsed, and the text of its parameters as written. */
export interface ListState {
  readonly filter: BucketFilter
  readonly prefix?: string
  readonly match?: string
  readonly page: number
}

/** What a link changes of the list it is on. */
export interface ListChanges {
  readonly sort?: BucketSortKey
  readonly order?: SortOrder
  readonly prefix?: string | undefined
  readonly match?: string | undefined
  readonly page?: number
}

/**
 * The landing page's address for `state` with `changes`: the parameters in one order, defaults
 * left out, so the links are stable. Percent-encoded (and to be HTML-escaped where written).
 */
export function pageHref(state: ListState, changes: ListChanges = {}): string {
  const sort = changes.sort ?? state.filter.sort
  const order = changes.order ?? state.filter.order
  const prefix = 'prefix' in changes ? changes.prefix : state.prefix
  const match = 'match' in changes ? changes.match : state.match
  const page = changes.page ?? state.page
  const parameters = new URLSearchParams()
  if (sort !== 'bytes') parameters.set('sort', sort)
  if (order !== (sort === 'name' ? 'asc' : 'desc')) parameters.set('order', order)
  if (prefix !== undefined) parameters.set('prefix', prefix)
  if (match !== undefined) parameters.set('match', match)
  if (page !== 1) parameters.set('page', String(page))
  const query = parameters.toString()
  return query === '' ? '/' : `/?${query}`
}

/** /api/v1/buckets for the same filter and order. */
export function apiHref(state: ListState): string {
  const parameters = new URLSearchParams({ sort: state.filter.sort, order: state.filter.order })
  if (state.prefix !== undefined) parameters.set('prefix', state.prefix)
  if (state.match !== undefined) parameters.set('match', state.match)
  return `/api/v1/buckets?${parameters}`
}

/** A query the page could not list: why, and the filter's text as written (shown again in the form). */
export interface ListProblem {
  readonly problem: string
  readonly prefix?: string
  readonly match?: string
}

/**
 * The list a validated query asks for, or why it cannot be listed: `problem` is the schema's
 * complaint (the query then as the client wrote it), else a malformed glob. An empty `match` or
 * `prefix`, as the form sends a field left blank, asks for no filter (to the API, `match=` is a
 * glob only the empty name matches).
 */
export function listStateOf(query: LandingQuery, problem?: string): ListState | ListProblem {
  const given = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined)
  const prefix = given(query.prefix)
  const match = given(query.match)
  const texts = { ...(prefix === undefined ? {} : { prefix }), ...(match === undefined ? {} : { match }) }
  if (problem !== undefined) return { problem, ...texts }
  const parsed = parseBucketFilter({ ...query, prefix, match }, 'bytes')
  if ('problem' in parsed) return { problem: parsed.problem, ...texts }
  return { filter: parsed.filter, page: query.page ?? 1, ...texts }
}
