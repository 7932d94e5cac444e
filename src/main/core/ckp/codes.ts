/**
 * CKP 0.2.0 §9.4 error codes: JSON-RPC's own and the range CKP reserves. Inside Pincer a failure
 * that the protocol names carries one of these (a tool result's `code`, an error's `code`), so
 * the protocol edge maps it without reading any message text. They are defined with the error
 * base (`../errors.ts`), which maps every error category to one of them.
 */
import { CKP_ERRORS, type CkpErrorCode } from '../errors.js';

export { CKP_ERRORS, type CkpErrorCode };

const KNOWN = new Set<number>(Object.values(CKP_ERRORS));

export function isCkpErrorCode(code: unknown): code is CkpErrorCode {
  return typeof code === 'number' && KNOWN.has(code);
}
