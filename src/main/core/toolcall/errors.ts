/** Typed errors of the tool-call language: nothing else escapes its parser or resolver. */

export class ToolCallSyntaxError extends Error {
  override readonly name = 'ToolCallSyntaxError';
  constructor(
    /** What went wrong, without the position prefix. */
    readonly detail: string,
    readonly line: number,
    readonly column: number,
    readonly offset: number,
    /** What the parser would have accepted here (quoted tokens or production names). */
    readonly expected: readonly string[] = [],
    /** The offending text, or `end of input`. */
    readonly found = '',
  ) {
    super(`${line}:${column}: ${detail}`);
  }
}

export type ToolCallReferenceReason =
  | 'no-previous-result'
  | 'missing'
  | 'env-not-allowed'
  | 'secret-name'
  | 'secret-value'
  | 'self-not-earlier';

/** A `$prev`/`$ctx`/`$env`/`$self` reference that may not or cannot be resolved. */
export class ToolCallReferenceError extends Error {
  override readonly name = 'ToolCallReferenceError';
  constructor(
    readonly reason: ToolCallReferenceReason,
    /** The reference as written, e.g. `$env.HOME`. */
    readonly reference: string,
    message: string,
    readonly line = 0,
    readonly column = 0,
  ) {
    super(message);
  }
}

/** Native JSON that the language cannot express (null, objects, empty arrays, bad names). */
export class ToolCallEncodeError extends Error {
  override readonly name = 'ToolCallEncodeError';
}

export function isToolCallSyntaxError(error: unknown): error is ToolCallSyntaxError {
  return error instanceof ToolCallSyntaxError;
}
