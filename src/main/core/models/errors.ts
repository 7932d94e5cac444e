/**
 * Why a model call failed, typed so the router can decide (retry, fall back, give up) and the
 * user reads which provider failed and how. Messages never contain credentials: they are built
 * from our own words plus provider error text that went through `redact`.
 */
import { type ErrorCategory, PincerError } from '../errors.js';
import type { ProviderId } from './ids.js';

export type ModelErrorCode =
  /** The model id is not in the catalog or not registered with the router. */
  | 'unknown_model'
  /** The request cannot be served: bad config, no endpoint, a capability the model lacks. */
  | 'invalid_request'
  | 'unreachable'
  | 'timeout'
  | 'auth'
  | 'rate_limited'
  /** A configured limit (tokens per day/request, requests per minute) would be exceeded. */
  | 'quota_exceeded'
  | 'server_error'
  /** 4xx other than auth/rate limit: the provider rejected the request. */
  | 'rejected'
  /** The body or a stream event was not what the protocol documents. */
  | 'bad_response'
  /** The stream ended (or the socket closed) before the reply was complete. */
  | 'truncated'
  | 'cancelled'
  /** Every model the router could try failed; `causes` holds each failure in order. */
  | 'all_failed';

/** CKP JSON-RPC codes (§8 error table) for the errors that have one. */
const CKP_CODES: Partial<Record<ModelErrorCode, number>> = { quota_exceeded: -32021 };

const RETRYABLE: ReadonlySet<ModelErrorCode> = new Set([
  'unreachable',
  'timeout',
  'rate_limited',
  'server_error',
  'truncated',
]);

const CATEGORY: Record<ModelErrorCode, ErrorCategory> = {
  unknown_model: 'not_found',
  invalid_request: 'invalid_request',
  unreachable: 'unavailable',
  timeout: 'timeout',
  auth: 'unauthenticated',
  rate_limited: 'rate_limited',
  quota_exceeded: 'rate_limited',
  server_error: 'unavailable',
  rejected: 'invalid_request',
  bad_response: 'internal',
  truncated: 'unavailable',
  cancelled: 'cancelled',
  all_failed: 'unavailable',
};

export class ModelError extends PincerError {
  override readonly name = 'ModelError';
  readonly code: ModelErrorCode;
  readonly provider: ProviderId | undefined;
  readonly status: number | undefined;
  /** From a Retry-After header (or the body's equivalent), in milliseconds. */
  readonly retryAfterMs: number | undefined;
  readonly causes: ModelError[];

  constructor(
    code: ModelErrorCode,
    message: string,
    options: {
      provider?: ProviderId;
      status?: number;
      retryAfterMs?: number;
      causes?: ModelError[];
      cause?: unknown;
    } = {},
  ) {
    super(CATEGORY[code], options.provider ? `${options.provider}: ${message}` : message, {
      cause: options.cause,
    });
    this.code = code;
    this.provider = options.provider;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
    this.causes = options.causes ?? [];
  }

  /** Worth trying the same model again after a pause. */
  get retryable(): boolean {
    return RETRYABLE.has(this.code);
  }

  /** The CKP JSON-RPC error code, when the protocol defines one for this failure. */
  override get ckpCode(): number | undefined {
    return CKP_CODES[this.code];
  }

  toJSON(): ModelErrorJson {
    return {
      code: this.code,
      message: this.message,
      provider: this.provider,
      status: this.status,
      retryAfterMs: this.retryAfterMs,
      ckpCode: this.ckpCode,
      causes: this.causes.map((cause) => cause.toJSON()),
    };
  }
}

export interface ModelErrorJson {
  code: ModelErrorCode;
  message: string;
  provider: string | undefined;
  status: number | undefined;
  retryAfterMs: number | undefined;
  ckpCode: number | undefined;
  causes: ModelErrorJson[];
}

export function isModelError(error: unknown, code?: ModelErrorCode): error is ModelError {
  return error instanceof ModelError && (code === undefined || error.code === code);
}
