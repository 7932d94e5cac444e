/**
 * The one result shape: a value or an error as a discriminated union, for what is returned
 * rather than thrown. Shared (and free of zod) so the IPC wire type, the WebSocket frames and
 * the core's `Result` (src/main/core/errors.ts) are one type.
 */
export type Result<T, E = ErrorInfo> = { ok: true; value: T } | { ok: false; error: E };

/** A plain, serialisable error shape shared by every transport (IPC, WebSocket, CKP). */
export interface ErrorInfo {
  /** A stable machine-readable code, e.g. `invalid_request` or a CKP numeric code as string. */
  code: string;
  message: string;
}
