import type { Logger } from 'pino'
import type { Config } from '../config/load.js'
import { EarlyRounds } from './early-rounds.js'
import { EventReceiver } from './receiver.js'
import type { ChangeListener } from './types.js'

/** `POST /events`'s parts, built from the configuration when EVENTS_AUTH_TOKEN is set. */
export interface ChangeEvents {
  readonly receiver: EventReceiver
  /** Stops the early-round timer. */
  close(): void
}

export interface ChangeEventsWiring {
  /** Whether the scanner measures a bucket (an event for another is refused, `not_scanned`). */
  readonly scanned: (bucket: string) => boolean
  /** Whether the bucket is in the current figures: its events are counted per bucket too. */
  readonly measured?: (bucket: string) => boolean
  /** Asks the scanner for a round, `pauseMs` after the last one ended at the soonest. */
  readonly requestRound: (pauseMs: number) => void
  /** Told of each change too, when the scanner keeps dirty key ranges. */
  readonly keys?: ChangeListener
}

/** The topic list of EVENTS_SNS_TOPIC_ARNS (validated by the schema). */
function topicArnsOf(config: Pick<Config, 'EVENTS_SNS_TOPIC_ARNS'>): string[] {
  return config.EVENTS_SNS_TOPIC_ARNS.split(',').filter((arn) => arn !== '')
}

/**
 * The receiver and what a change does: with EVENTS_DEBOUNCE_SECONDS > 0 the next round starts
 * early (one per period at most), and `keys`, when given, learns each changed key. Undefined when
 * EVENTS_AUTH_TOKEN is empty: no endpoint.
 */
export function changeEventsOf(
  config: Config,
  wiring: ChangeEventsWiring,
  logger: Logger,
): ChangeEvents | undefined {
  if (config.EVENTS_AUTH_TOKEN === '') return undefined
  const rounds =
    config.EVENTS_DEBOUNCE_SECONDS > 0
      ? new EarlyRounds({
          debounceMs: config.EVENTS_DEBOUNCE_SECONDS * 1000,
          requestRound: wiring.requestRound,
        })
      : undefined
  const { keys } = wiring
  const listener: ChangeListener = {
    changed(bucket, key) {
      keys?.changed(bucket, key)
      rounds?.changed(bucket, key)
    },
  }
  const receiver = new EventReceiver({
    listener,
    topicArns: topicArnsOf(config),
    scanned: wiring.scanned,
    ...(wiring.measured ? { measured: wiring.measured } : {}),
    logger,
  })
  return { receiver, close: () => rounds?.close() }
}
