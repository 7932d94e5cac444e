/** A plain, serialisable error shape shared by every transport (IPC, WebSocket, CKP). */
export interface ErrorInfo {
  /** A stable machine-readable code, e.g. `invalid_request` or a CKP numeric code as string. */
  code: string;
  message: string;
}
