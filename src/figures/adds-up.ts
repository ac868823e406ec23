/**
 * A distribution whose slots do not add up to the figure they split (the state file's check of a
 * stored record: a fold adds each object to one slot of each): why, or undefined when they do.
 */
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
