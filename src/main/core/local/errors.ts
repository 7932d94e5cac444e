/** Why a local-engine operation failed; callers switch on `code`, people read `message`. */
import { type ErrorCategory, PincerError } from '../errors.js';

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

const CATEGORY: Record<LocalErrorCode, ErrorCategory> = {
  model_not_found: 'not_found',
  invalid_model: 'invalid_request',
  truncated_model: 'invalid_request',
  insufficient_memory: 'unavailable',
  load_timeout: 'timeout',
  invalid_request: 'invalid_request',
  generation_failed: 'internal',
  context_too_small: 'invalid_request',
  unknown_model: 'not_found',
  checksum_mismatch: 'invalid_request',
  download_failed: 'unavailable',
  offline: 'unavailable',
  disposed: 'unavailable',
};

export class LocalEngineError extends PincerError {
  override readonly name = 'LocalEngineError';
  constructor(
    readonly code: LocalErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(CATEGORY[code], message, options);
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
