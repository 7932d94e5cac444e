/** Why a local-engine operation failed; callers switch on `code`, people read `message`. */
export type LocalErrorCode =
  | 'model_not_found'
  | 'invalid_model'
  | 'truncated_model'
  | 'insufficient_memory'
  /** A native load passed its deadline (the work may still run on in its thread). */
  | 'load_timeout'
  | 'invalid_request'
  | 'generation_failed'
  /** The system text and tool definitions alone do not fit the model's context. */
  | 'context_too_small'
  | 'unknown_model'
  | 'checksum_mismatch'
  | 'download_failed'
  | 'offline'
  | 'disposed';

export class LocalEngineError extends Error {
  override readonly name = 'LocalEngineError';
  constructor(
    readonly code: LocalErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isLocalEngineError(
  error: unknown,
  code?: LocalErrorCode,
): error is LocalEngineError {
  return error instanceof LocalEngineError && (code === undefined || error.code === code);
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
