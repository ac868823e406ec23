/**
 * Ready means "serving real data": each source that needs a first result (a usage snapshot,
 * scanned or loaded) registers a check, and /readyz answers 200 only when all pass.
 */
export class Readiness {
  readonly #checks = new Map<string, () => boolean>()

  add(name: string, check: () => boolean): void {
    this.#checks.set(name, check)
  }

  /** Names of the checks not passing yet; empty when ready. */
  waitingFor(): string[] {
    return [...this.#checks].filter(([, check]) => !check()).map(([name]) => name)
  }
}
