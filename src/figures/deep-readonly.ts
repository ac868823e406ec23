/**
 * Read-only all the way down: once measured, figures are never written again (the compiler holds
 * every holder to it; snapshot.ts says why there is no Object.freeze at run time).
 */
export type Frozen<T> = T extends readonly (infer E)[]
  ? readonly Frozen<E>[]
  : T extends object
    ? { readonly [K in keyof T]: Frozen<T[K]> }
    : T
