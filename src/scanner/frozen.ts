/** Read-only all the way down: figures are frozen once measured (snapshot.ts's deepFreeze). */
export type Frozen<T> = T extends readonly (infer E)[]
  ? readonly Frozen<E>[]
  : T extends object
    ? { readonly [K in keyof T]: Frozen<T[K]> }
    : T
