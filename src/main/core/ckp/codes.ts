/**
 * CKP 0.2.0 §9.4 error codes: JSON-RPC's own and the range CKP reserves. Inside Pincer a failure
 * that the protocol names carries one of these (a tool result's `code`, an error's `code`), so
 * the protocol edge maps it without reading any message text.
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

const KNOWN = new Set<number>(Object.values(CKP_ERRORS));

export function isCkpErrorCode(code: unknown): code is CkpErrorCode {
  return typeof code === 'number' && KNOWN.has(code);
}
