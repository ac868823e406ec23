import { Writable } from 'node:stream'
import type { RoundProgressView } from '../scanning/round-progress.js'
import { formatAge } from '../server/landing/format.js'
import { progressSummary } from '../server/landing/progress.js'

/**
 * `scan --once`'s progress bar on a terminal (issue 26.9): one line on stderr, redrawn in place
 * (a carriage return, the line, "erase to the end of the line") every REDRAW_MS, cleared when the
 * scan ends. Only on a terminal: a pipe or a file gets no bar and no escape code, only the log
 * lines (among them the progress line every 15 s). Log lines written while the bar shows go
 * through `logStream`, which clears the bar, writes the line and draws the bar again below it.
 */

/** Between two draws: a few a second, not a busy loop. */
const REDRAW_MS = 250
const BAR_WIDTH = 20
const CLEAR = '\r\u001b[K'

/** What the bar writes to: stderr, or (tests) anything with its shape. */
export interface Terminal {
  write(text: string): boolean
  readonly isTTY?: boolean
  /** Its width; 0 or undefined (a terminal of unknown size, as under script(1)): 80. */
  readonly columns?: number
}

/** Whether `output` gets a bar: a terminal that can move its cursor back (TERM=dumb cannot). */
export function wantsBar(output: Terminal, env: NodeJS.ProcessEnv): boolean {
  return output.isTTY === true && env.TERM !== 'dumb'
}

export class ProgressBar {
  readonly #output: Terminal
  readonly #view: () => RoundProgressView | undefined
  readonly #redact: (text: string) => string
  #timer: NodeJS.Timeout | undefined
  #shown = false
  #running = false

  /** `redact` blanks secrets out of the line (a bucket name is the store's text), as the log's redactor does. */
  constructor(output: Terminal, view: () => RoundProgressView | undefined, redact: (text: string) => string) {
    this.#output = output
    this.#view = view
    this.#redact = redact
  }

  /** Draws now and every REDRAW_MS until stop(). */
  start(): void {
    this.#running = true
    this.#draw()
    this.#timer = setInterval(() => this.#draw(), REDRAW_MS)
    this.#timer.unref()
  }

  /** Clears the bar; nothing is drawn again. */
  stop(): void {
    this.#running = false
    clearInterval(this.#timer)
    this.#clear()
  }

  /** Where log lines go while the bar may show: each is written above the bar. */
  readonly logStream: Writable & { readonly isTTY: boolean } = Object.assign(
    new Writable({
      write: (chunk: Buffer | string, _encoding, callback) => {
        this.#clear()
        this.#output.write(chunk.toString())
        if (this.#running) this.#draw()
        callback()
      },
    }),
    { isTTY: true },
  )

  #draw(): void {
    const view = this.#view()
    if (!view) return
    this.#output.write(`\r${this.#redact(barLine(view, this.#output.columns || 80))}\u001b[K`)
    this.#shown = true
  }

  #clear(): void {
    if (!this.#shown) return
    this.#output.write(CLEAR)
    this.#shown = false
  }
}

/** The bar's line, cut to one column less than the terminal (a full line would wrap, and \r not return). */
export function barLine(view: RoundProgressView, columns: number): string {
  const done =
    view.buckets === undefined ? undefined : view.buckets === 0 ? 1 : view.bucketsDone / view.buckets
  const bar =
    done === undefined ? '' : `[${'#'.repeat(Math.floor(done * BAR_WIDTH)).padEnd(BAR_WIDTH, '.')}] `
  const names =
    view.inProgress.length === 0
      ? ''
      : ` · ${view.inProgress.map(printable).join(', ')}${view.inProgressCount > view.inProgress.length ? ', …' : ''}`
  const line = `scan ${bar}${progressSummary(view)} · ${formatAge(view.elapsedSeconds)}${names}`
  const width = Math.max(10, columns - 1)
  return [...line].length <= width ? line : `${[...line].slice(0, width - 1).join('')}…`
}

/** A bucket name as a terminal shows it: control characters (an escape sequence in a name) as `?`. */
const printable = (name: string) => name.replace(/\p{Cc}/gu, '?')
