export type SkillErrorCode =
  | 'malformed'
  | 'duplicate'
  | 'not_found'
  | 'too_large'
  | 'unreadable'
  /** Refused by the workspace guard: a link or hard link that may lead outside its folder. */
  | 'refused';

/** A skill file or registry operation refused; the registry is unchanged. */
export class SkillError extends Error {
  constructor(
    readonly code: SkillErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SkillError';
  }
}
