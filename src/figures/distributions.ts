/*
 * What the figures that split a total into slots (size ranges, age bands, version ranges) share:
 * the check that a stored record's slots add up to the total they split.
 */

/** Why `slots` (a distribution) cannot be a fold's: they do not add up to the figure they split. */
export function sumProblem(
  slots: readonly number[] | undefined,
  total: number,
  name: string,
  totalName: string,
): string | undefined {
  if (slots === undefined) return undefined
  let sum = 0
  for (const slot of slots) sum += slot
  return sum === total ? undefined : `/usage/${name} adds up to ${sum}, not ${totalName} ${total}`
}
