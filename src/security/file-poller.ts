import { readFile } from 'node:fs/promises'

export interface FilePollerOptions {
  readonly paths: readonly string[]
  readonly intervalMs: number
  /** The contents already in use, read at start; a change is judged against these. */
  readonly initial: readonly Buffer[]
  /** Called with every path's contents (in `paths` order) when any of them changed. */
  readonly onChange: (contents: Buffer[]) => void
  /** Called once per distinct read failure (not on every poll), with a line naming the path. */
  readonly onProblem: (message: string) => void
  /**
   * Runs `poll` after `ms` and returns a cancel function; an unref'd setTimeout by default. A test
   * injects its own to run each poll by hand and await it, instead of sleeping and hoping.
   */
  readonly schedule?: (poll: () => Promise<void>, ms: number) => () => void
}

function scheduleWithTimer(poll: () => Promise<void>, ms: number): () => void {
  const timer = setTimeout(() => void poll(), ms)
  timer.unref()
  return () => clearTimeout(timer)
}

/**
 * Reads a few small files again every interval and reports when their bytes change. Comparing
 * bytes rather than watching: Kubernetes swaps a secret volume's symlinks, cert-manager and mesh
 * agents rewrite in place, and inotify misses one or the other; a stat's mtime can miss a rewrite
 * within the same second. Files here are a few kilobytes, so a read every few seconds is nothing.
 */
export class FilePoller {
  readonly #options: FilePollerOptions
  #seen: readonly Buffer[]
  #cancel: (() => void) | undefined
  #inFlight: Promise<void> = Promise.resolve()
  #lastProblem = ''
  #closed = false

  constructor(options: FilePollerOptions) {
    this.#options = options
    this.#seen = options.initial
    this.#schedule()
  }

  /** Stops polling; resolves once a read in progress has finished. */
  async close(): Promise<void> {
    this.#closed = true
    this.#cancel?.()
    await this.#inFlight
  }

  #schedule(): void {
    if (this.#closed) return
    // Scheduled after each read rather than at an interval: a slow disk never piles reads up.
    const schedule = this.#options.schedule ?? scheduleWithTimer
    this.#cancel = schedule(() => {
      this.#inFlight = this.#poll().finally(() => this.#schedule())
      return this.#inFlight
    }, this.#options.intervalMs)
  }

  async #poll(): Promise<void> {
    const contents: Buffer[] = []
    for (const path of this.#options.paths) {
      try {
        contents.push(await readFile(path))
      } catch (error) {
        const message = `${path}: ${readFailure(error)}`
        if (message !== this.#lastProblem) this.#options.onProblem(message)
        this.#lastProblem = message
        return
      }
    }
    this.#lastProblem = ''
    if (this.#closed) return
    const changed = contents.some((content, index) => !content.equals(this.#seen[index] ?? Buffer.alloc(0)))
    if (!changed) return
    // Remembered before judging: a bad new version is reported once, not on every poll.
    this.#seen = contents
    this.#options.onChange(contents)
  }
}

/** "cannot read (ENOENT: no such file or directory)": Node's message without the repeated path. */
export function readFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return `cannot read (${message.replace(/, \w+( '.*')?$/s, '')})`
}
