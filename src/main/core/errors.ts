/**
 * The one error base of the agent. Every module's error class extends `PincerError` and names a
 * `category` from one closed set; each surface (IPC, CKP, HTTP, the CLI) maps errors by that
 * category through the tables here, never by reading a message or guessing at a `code` field.
 * A module keeps its own, finer `code` (callers switch on it); the category is what leaves.
 */
import type { IpcErrorCode } from '../../shared/ipc-result.js';
import type { Result as SharedResult } from '../../shared/result.js';

/**
 * CKP 0.2.0 §9.4 error codes: JSON-RPC's own and the range CKP reserves. They live here, below
 * every module, so the one mapping can name them (`ckp/codes.ts` re-exports them).
 */
export const CKP_ERRORS = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  versionNotSupported: -32001,
  sandboxDenied: -32010,
  policyDenied: -32011,
  approvalTimeout: -32012,
  approvalDenied: -32013,
  toolTimeout: -32014,
  providerQuota: -32021,
} as const;

export type CkpErrorCode = (typeof CKP_ERRORS)[keyof typeof CKP_ERRORS];

/** What kind of failure: the closed set every module's codes fall into. */
export type ErrorCategory =
  /** The caller's input cannot be served (malformed, out of range, misconfigured). */
  | 'invalid_request'
  | 'not_found'
  /** The target already exists or is held (a manifest, a running instance). */
  | 'conflict'
  | 'too_large'
  /** Refused by a guard: the workspace confinement, the sandbox, a policy. */
  | 'denied'
  /** A credential is missing or wrong (a provider key, a signature, a passphrase). */
  | 'unauthenticated'
  | 'rate_limited'
  | 'timeout'
  /** Not now: paused, stopping, offline, unreachable, shut down. */
  | 'unavailable'
  | 'cancelled'
  /** A capability this build or this setup does not have. */
  | 'unsupported'
  /** Our fault or a broken dependency: damaged data, a failed write, a bug. */
  | 'internal';

/**
 * The one mapping from a category to each surface's code. IPC keeps its contract's codes
 * (`src/shared/ipc-result.ts`), so categories it does not name travel as `internal`.
 */
export const ERROR_MAP: Readonly<
  Record<ErrorCategory, { ipc: IpcErrorCode; ckp: CkpErrorCode; http: number }>
> = {
  invalid_request: { ipc: 'invalid_request', ckp: CKP_ERRORS.invalidParams, http: 400 },
  not_found: { ipc: 'not_found', ckp: CKP_ERRORS.invalidParams, http: 404 },
  conflict: { ipc: 'internal', ckp: CKP_ERRORS.invalidRequest, http: 409 },
  too_large: { ipc: 'too_large', ckp: CKP_ERRORS.invalidParams, http: 413 },
  denied: { ipc: 'internal', ckp: CKP_ERRORS.sandboxDenied, http: 403 },
  unauthenticated: { ipc: 'internal', ckp: CKP_ERRORS.internalError, http: 401 },
  rate_limited: { ipc: 'internal', ckp: CKP_ERRORS.internalError, http: 429 },
  timeout: { ipc: 'internal', ckp: CKP_ERRORS.internalError, http: 504 },
  unavailable: { ipc: 'internal', ckp: CKP_ERRORS.internalError, http: 503 },
  cancelled: { ipc: 'internal', ckp: CKP_ERRORS.internalError, http: 499 },
  unsupported: { ipc: 'invalid_request', ckp: CKP_ERRORS.invalidRequest, http: 501 },
  internal: { ipc: 'internal', ckp: CKP_ERRORS.internalError, http: 500 },
};

/** The category of an error that already carries a CKP code (a tool's, the sandbox's, a peer's). */
export function categoryOfCkpCode(code: number | undefined): ErrorCategory {
  switch (code) {
    case CKP_ERRORS.parseError:
    case CKP_ERRORS.invalidRequest:
    case CKP_ERRORS.invalidParams:
      return 'invalid_request';
    case CKP_ERRORS.methodNotFound:
      return 'not_found';
    case CKP_ERRORS.versionNotSupported:
      return 'unsupported';
    case CKP_ERRORS.sandboxDenied:
    case CKP_ERRORS.policyDenied:
    case CKP_ERRORS.approvalDenied:
      return 'denied';
    case CKP_ERRORS.approvalTimeout:
    case CKP_ERRORS.toolTimeout:
      return 'timeout';
    case CKP_ERRORS.providerQuota:
      return 'rate_limited';
    default:
      return 'internal';
  }
}

const BY_STATUS = new Map(
  (Object.keys(ERROR_MAP) as ErrorCategory[]).map((category) => [
    ERROR_MAP[category].http,
    category,
  ]),
);

/** The category of an error that already carries an HTTP status (an API answer). */
export function categoryOfHttpStatus(status: number): ErrorCategory {
  return BY_STATUS.get(status) ?? (status >= 400 && status < 500 ? 'invalid_request' : 'internal');
}

export interface PincerErrorOptions {
  cause?: unknown;
  /** Structured facts for logs and callers (never a secret, never a path outside the profile). */
  details?: Readonly<Record<string, unknown>>;
}

export class PincerError extends Error {
  readonly category: ErrorCategory;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(category: ErrorCategory, message: string, options?: PincerErrorOptions) {
    // Only a `cause` the caller passed is installed, as `Error` itself does.
    super(message, options && 'cause' in options ? { cause: options.cause } : undefined);
    this.name = 'PincerError';
    this.category = category;
    this.details = options?.details;
  }

  /** A CKP code more precise than the category's, when this failure has one (-32010, -32021). */
  get ckpCode(): number | undefined {
    return undefined;
  }
}

export function isPincerError(error: unknown): error is PincerError {
  return error instanceof PincerError;
}

/** The IPC contract's code for anything thrown: by type, never by message. */
export function ipcCodeOf(error: unknown): IpcErrorCode {
  return error instanceof PincerError ? ERROR_MAP[error.category].ipc : 'internal';
}

/** The CKP JSON-RPC code for anything thrown: the error's own, else its category's. */
export function ckpCodeOf(error: unknown): number {
  if (!(error instanceof PincerError)) return CKP_ERRORS.internalError;
  return error.ckpCode ?? ERROR_MAP[error.category].ckp;
}

/** The HTTP status for anything thrown. */
export function httpStatusOf(error: unknown): number {
  return error instanceof PincerError ? ERROR_MAP[error.category].http : 500;
}

/** What is returned rather than thrown: a value, or a typed error. */
export type Result<T, E extends PincerError = PincerError> = SharedResult<T, E>;

export const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });
export const err = <E extends PincerError>(error: E): { ok: false; error: E } => ({
  ok: false,
  error,
});
