/** Call results shared by every transport; free of zod so the renderer bundle stays small. */
import type { Result } from './result.js';

/** What a transport returns for every call: a value or a coded error, never a thrown object. */
export type IpcResult<T> = Result<T, { code: IpcErrorCode; message: string }>;

export type IpcErrorCode =
  | 'unknown_channel'
  | 'invalid_request'
  | 'too_large'
  | 'not_found'
  | 'internal';

/** Thrown on the renderer side when a call comes back as an error result. */
export class IpcCallError extends Error {
  constructor(
    readonly code: IpcErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'IpcCallError';
  }
}

/** Turns a transport result into a value or an IpcCallError. */
export function unwrapResult<T>(result: IpcResult<T>): T {
  if (result.ok) return result.value;
  throw new IpcCallError(result.error.code, result.error.message);
}
