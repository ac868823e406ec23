import { type FailureKind, SourceError } from '../types.js'
import { WalkError } from './walk-pool.js'

/** A failed walk as the scanner cares: a folder gone is a missing bucket, no permission denied. */
export function toSourceError(error: unknown, context: string): SourceError {
  const code = error instanceof WalkError ? error.code : (error as NodeJS.ErrnoException).code
  const kinds: Record<string, FailureKind> = {
    ENOENT: 'missing',
    ENOTDIR: 'missing',
    EACCES: 'denied',
    EPERM: 'denied',
  }
  const message = error instanceof Error ? error.message : String(error)
  return new SourceError(`${context}: ${message}`, kinds[code ?? ''] ?? 'failed', { cause: error })
}
