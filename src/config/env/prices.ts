import { Type } from '@sinclair/typebox'
import { describedPattern } from '../schema-helpers.js'

/**
 * The operator's price table, exported as gauges for the cost recording rules of
 * config/alerts.yml (docs/forecast-and-cost.md). Never defaulted: a price the operator did not
 * set is no series, not a guess at a provider's list price.
 */

/** A price: plain decimal, never negative (`0.023`, `5`, `.5`). */
const PRICE = '([0-9]+(\\.[0-9]*)?|\\.[0-9]+)'
/** A storage class as stores name them (STANDARD, STANDARD_IA, GLACIER_IR, an RGW class). */
const STORAGE_CLASS = '[A-Za-z0-9_-]{1,64}'
const REQUEST_CLASS = '(list|other)'

function priceList(key: string): string {
  const entry = ` *${key} *= *${PRICE} *`
  return `^(${entry}(,${entry})*)?$`
}

/** The request classes REQUEST_PRICES prices, and which operations each covers. */
const REQUEST_CLASSES = ['list', 'other'] as const
type RequestClass = (typeof REQUEST_CLASSES)[number]

export const pricesEnv = {
  STORAGE_PRICES: Type.String({
    default: '',
    pattern: describedPattern(
      priceList(STORAGE_CLASS),
      'comma-separated CLASS=PRICE entries in currency per GiB-month (`STANDARD=0.023,GLACIER=0.0036`)',
    ),
    description:
      'Storage price per GiB-month by storage class, `CLASS=PRICE,...` (e.g. `STANDARD=0.023,STANDARD_IA=0.0125,GLACIER=0.0036`), in your currency, exported as `storage_price_per_gibibyte_month{storage_class}` for the cost recording rules. Empty: no price series and no storage cost; no price is ever assumed.',
  }),
  REQUEST_PRICES: Type.String({
    default: '',
    pattern: describedPattern(
      priceList(REQUEST_CLASS),
      'comma-separated list=PRICE and other=PRICE entries in currency per 1,000 requests (`list=0.005,other=0.0004`)',
    ),
    description:
      'Request price per 1,000 requests by class, `list=PRICE,other=PRICE` (`list`: List* operations, billed as S3 class A; `other`: every other request), exported as `request_price_per_thousand{request_class}` to price what the scans cost. Empty: no request price series.',
  }),
}

/** Prices by class, in the order given. */
type PriceList = ReadonlyMap<string, number>

export interface PriceTable {
  /** Currency per GiB-month, by storage class. */
  readonly storage: PriceList
  /** Currency per 1,000 requests, by request class. */
  readonly requests: ReadonlyMap<RequestClass, number>
}

/**
 * The two variables parsed, once the schema has checked their form; a class named twice is one
 * line naming the variable.
 */
export function parsePriceTable(raw: { STORAGE_PRICES: string; REQUEST_PRICES: string }): {
  table: PriceTable
  problems: string[]
} {
  const problems: string[] = []
  const storage = parsePriceList('STORAGE_PRICES', raw.STORAGE_PRICES, problems)
  const requests = parsePriceList('REQUEST_PRICES', raw.REQUEST_PRICES, problems) as Map<RequestClass, number>
  return { table: { storage, requests }, problems }
}

function parsePriceList(name: string, text: string, problems: string[]): PriceList {
  const prices = new Map<string, number>()
  const twice = new Set<string>()
  const huge = new Set<string>()
  for (const entry of text.split(',')) {
    if (entry.trim() === '') continue
    const equals = entry.indexOf('=')
    const key = entry.slice(0, equals).trim()
    const price = Number(entry.slice(equals + 1).trim())
    if (prices.has(key)) twice.add(key)
    if (!Number.isFinite(price)) huge.add(key)
    prices.set(key, price)
  }
  const shown = `${name}=${JSON.stringify(text)}: expected`
  if (twice.size > 0) problems.push(`${shown} each class once, got ${[...twice].join(', ')} more than once`)
  else if (huge.size > 0)
    problems.push(`${shown} finite prices, got too large a number for ${[...huge].join(', ')}`)
  return prices
}
