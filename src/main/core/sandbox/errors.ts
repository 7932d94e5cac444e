/**
 * Sandbox failures as values with CKP codes (003 §9): -32010 when the sandbox refuses or cannot
 * enforce what was configured, -32014 when a tool ran past its deadline.
 */
import { categoryOfCkpCode, PincerError } from '../errors.js';
export const SANDBOX_DENIED = -32010;
export const TOOL_TIMEOUT = -32014;

export type SandboxErrorCode = typeof SANDBOX_DENIED | typeof TOOL_TIMEOUT;

export class SandboxError extends PincerError {
  override readonly name = 'SandboxError';
  constructor(
    readonly code: SandboxErrorCode,
    message: string,
  ) {
    super(categoryOfCkpCode(code), message);
  }

  override get ckpCode(): number {
    return this.code;
  }
}

/** The tool-result text for a refusal: structured, so a model and a log can both read it. */
export function deniedResult(
  tool: string,
  reason: string,
): { content: string; isError: true; code: typeof SANDBOX_DENIED } {
  return {
    content: JSON.stringify({ error: 'sandbox_denied', code: SANDBOX_DENIED, tool, reason }),
    isError: true,
    code: SANDBOX_DENIED,
  };
}
