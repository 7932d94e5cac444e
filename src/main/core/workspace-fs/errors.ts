import { type ErrorCategory, PincerError } from '../errors.js';

export type ConfinementCode =
  /** A bad path argument (not a string, a null byte). */
  | 'invalid'
  /** The path names something outside its root (`..`, an absolute path elsewhere). */
  | 'outside'
  /** A symbolic link on the way, or one that leads outside (dangling ones too). */
  | 'link'
  /** A regular file with more than one name: it may alias a file outside the root. */
  | 'hard_link'
  /** Not a regular file (a folder, a FIFO, a device). */
  | 'not_file'
  | 'not_found'
  /** A new file was to be created where one already is. */
  | 'exists'
  | 'too_large'
  /** Inside a path the sandbox denies, or a write to a read-only grant. */
  | 'denied'
  | 'io';

const CATEGORY: Record<ConfinementCode, ErrorCategory> = {
  invalid: 'invalid_request',
  outside: 'denied',
  link: 'denied',
  hard_link: 'denied',
  not_file: 'invalid_request',
  not_found: 'not_found',
  exists: 'conflict',
  too_large: 'too_large',
  denied: 'denied',
  io: 'internal',
};

/**
 * A file access refused by the confinement guard, or one that failed on its way; nothing was
 * read or written. The message is meant for the model or the user as it is.
 */
export class ConfinementError extends PincerError {
  constructor(
    readonly code: ConfinementCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(CATEGORY[code], message, options);
    this.name = 'ConfinementError';
  }
}
