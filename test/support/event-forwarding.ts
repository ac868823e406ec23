/**
 * Forwards s3rver's in-process `event` records (see startS3rver's `onEvent`) to an exporter's
 * POST /events, one POST per event as Ceph RGW's push endpoint sends them, the token in the query,
 * in order, one at a time. Until `target` is set (events of fixtures written before the exporter
 * started) nothing is sent.
 */
export class EventForwarder {
  /** The exporter's base URL (`http://127.0.0.1:PORT`); undefined: events are dropped. */
  target: string | undefined
  /** Each delivery's HTTP status, in order. */
  readonly answers: number[] = []
  readonly #token: string
  #chain: Promise<void> = Promise.resolve()

  constructor(token: string) {
    this.#token = token
  }

  /** For `startS3rver({ onEvent })`. */
  readonly forward = (event: unknown): void => {
    const target = this.target
    if (!target) return
    this.#chain = this.#chain.then(async () => {
      const response = await fetch(`${target}/events?token=${this.#token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(event),
        signal: AbortSignal.timeout(10_000),
      })
      await response.arrayBuffer()
      this.answers.push(response.status)
    })
  }

  /** Resolves once every event forwarded so far has been answered. */
  settled(): Promise<void> {
    return this.#chain
  }
}
