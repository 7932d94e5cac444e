/** Typed errors of the tool-call language: nothing else escapes its parser or resolver. */
import { type ErrorCategory, PincerError } from '../errors.js';

export class ToolCallSyntaxError extends PincerError {
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
    super('invalid_request', `${line}:${column}: ${detail}`);
  }
}

export type ToolCallReferenceReason =
  | 'no-previous-result'
  | 'missing'
  | 'env-not-allowed'
  | 'secret-name'
  | 'secret-value'
  | 'self-not-earlier';

/** Reaching for the environment or a secret is refused; the rest is a malformed call. */
const REFERENCE_CATEGORY: Record<ToolCallReferenceReason, ErrorCategory> = {
  'no-previous-result': 'invalid_request',
  missing: 'invalid_request',
  'env-not-allowed': 'denied',
  'secret-name': 'denied',
  'secret-value': 'denied',
  'self-not-earlier': 'invalid_request',
};

/** A `$prev`/`$ctx`/`$env`/`$self` reference that may not or cannot be resolved. */
export class ToolCallReferenceError extends PincerError {
  override readonly name = 'ToolCallReferenceError';
  constructor(
    readonly reason: ToolCallReferenceReason,
    /** The reference as written, e.g. `$env.HOME`. */
    readonly reference: string,
    message: string,
    readonly line = 0,
    readonly column = 0,
  ) {
    super(REFERENCE_CATEGORY[reason], message);
  }
}

/** Native JSON that the language cannot express (null, objects, empty arrays, bad names). */
export class ToolCallEncodeError extends PincerError {
  override readonly name = 'ToolCallEncodeError';
  constructor(message: string) {
    super('invalid_request', message);
  }
}

export function isToolCallSyntaxError(error: unknown): error is ToolCallSyntaxError {
  return error instanceof ToolCallSyntaxError;
}
