import { type ErrorCategory, PincerError } from '../errors.js';

export type SkillErrorCode =
  | 'malformed'
  | 'duplicate'
  | 'not_found'
  | 'too_large'
  | 'unreadable'
  /** Refused by the workspace guard: a link or hard link that may lead outside its folder. */
  | 'refused';

const CATEGORY: Record<SkillErrorCode, ErrorCategory> = {
  malformed: 'invalid_request',
  duplicate: 'conflict',
  not_found: 'not_found',
  too_large: 'too_large',
  unreadable: 'internal',
  refused: 'denied',
};

/** A skill file or registry operation refused; the registry is unchanged. */
export class SkillError extends PincerError {
  constructor(
    readonly code: SkillErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(CATEGORY[code], message, options);
    this.name = 'SkillError';
  }
}
