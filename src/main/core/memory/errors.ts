import { type ErrorCategory, PincerError } from '../errors.js';

export type MemoryErrorCode =
  | 'too_large'
  | 'binary'
  | 'not_found'
  | 'unreadable'
  | 'corrupt_database'
  | 'bad_input'
  /** Refused by the workspace guard: a link, a hard link, a path outside its folder. */
  | 'refused'
  | 'embedding_failed';

const CATEGORY: Record<MemoryErrorCode, ErrorCategory> = {
  too_large: 'too_large',
  binary: 'invalid_request',
  not_found: 'not_found',
  unreadable: 'internal',
  corrupt_database: 'internal',
  bad_input: 'invalid_request',
  refused: 'denied',
  embedding_failed: 'internal',
};

/** A memory operation that refused its input or found the store damaged; nothing was changed. */
export class MemoryError extends PincerError {
  constructor(
    readonly code: MemoryErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(CATEGORY[code], message, options);
    this.name = 'MemoryError';
  }
}
