/*
 * The bound of a label value taken from the store (a bucket's owner, tenant and tags; a user's id
 * and tenant): the record holds it cut, so the exposition never carries an unbounded value.
 */

/** The most characters a label value taken from the store may have (longer ones are cut). */
export const SETTING_VALUE_MAX_LENGTH = 256

/** A value from the store, cut to a bounded label value (never inside a surrogate pair). */
export function boundedValue(value: string): string {
  if (value.length <= SETTING_VALUE_MAX_LENGTH) return value
  let end = SETTING_VALUE_MAX_LENGTH
  const last = value.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end--
  return value.slice(0, end)
}
