/**
 * Errors at the OpenAI-compatible edge: a typed value carrying the HTTP status and the fields
 * of OpenAI's error object, so every client library maps it to its own error class.
 */
import { categoryOfHttpStatus, PincerError } from '../errors.js';
import { isLocalEngineError, type LocalErrorCode } from '../local/errors.js';

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

/** Engine failures the caller caused are 400s; the rest are the server's. */
const CLIENT_CODES: ReadonlySet<LocalErrorCode> = new Set(['invalid_request']);

export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (isLocalEngineError(error)) {
    if (CLIENT_CODES.has(error.code)) return invalidParam(error.message);
    if (error.code === 'disposed')
      return new ApiError(503, 'service_unavailable', 'shutting_down', error.message);
    return new ApiError(500, 'server_error', error.code, error.message);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ApiError(500, 'server_error', 'internal_error', message);
}
