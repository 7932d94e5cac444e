/**
 * Errors at the OpenAI-compatible edge: a typed value carrying the HTTP status and the fields
 * of OpenAI's error object, so every client library maps it to its own error class.
 */
import { categoryOfHttpStatus, type ErrorCategory, httpStatusOf, PincerError } from '../errors.js';
import { isLocalEngineError } from '../local/index.js';

export type ApiErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'server_error'
  | 'service_unavailable';

export class ApiError extends PincerError {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly type: ApiErrorType,
    readonly code: string,
    message: string,
    readonly param: string | null = null,
  ) {
    super(categoryOfHttpStatus(status), message);
  }

  /** The body OpenAI sends: `{ error: { message, type, param, code } }`. */
  body(): { error: { message: string; type: string; param: string | null; code: string } } {
    return {
      error: { message: this.message, type: this.type, param: this.param, code: this.code },
    };
  }
}

export const invalidParam = (
  message: string,
  param: string | null = null,
  code = 'invalid_value',
) => new ApiError(400, 'invalid_request_error', code, message, param);

export const modelNotFound = (model: string) =>
  new ApiError(
    404,
    'invalid_request_error',
    'model_not_found',
    `The model \`${model}\` does not exist here; GET /v1/models lists the ones served`,
    'model',
  );

/** OpenAI's error type for the categories it names; the rest are the server's. */
const TYPES: Partial<Record<ErrorCategory, ApiErrorType>> = {
  invalid_request: 'invalid_request_error',
  too_large: 'invalid_request_error',
  conflict: 'invalid_request_error',
  unsupported: 'invalid_request_error',
  not_found: 'not_found_error',
  unauthenticated: 'authentication_error',
  denied: 'authentication_error',
  rate_limited: 'rate_limit_error',
  unavailable: 'service_unavailable',
};

/** By type: a PincerError's category gives the status and type; anything else is a 500. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (!(error instanceof PincerError)) {
    return new ApiError(500, 'server_error', 'internal_error', message);
  }
  if (error.category === 'invalid_request') return invalidParam(message);
  if (isLocalEngineError(error, 'disposed')) {
    return new ApiError(503, 'service_unavailable', 'shutting_down', message);
  }
  const own = (error as { code?: unknown }).code;
  return new ApiError(
    httpStatusOf(error),
    TYPES[error.category] ?? 'server_error',
    typeof own === 'string' ? own : error.category,
    message,
  );
}
