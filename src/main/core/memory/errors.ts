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

/** A memory operation that refused its input or found the store damaged; nothing was changed. */
export class MemoryError extends Error {
  constructor(
    readonly code: MemoryErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'MemoryError';
  }
}
