/**
 * What the runtime asks of the policy and of approvals. Both are required dependencies of a
 * run: there is no allow-everything default; the agent root wires the real engine and broker.
 */
import type { ToolCall } from '../../../shared/messages.js';
import type { CapabilityGrant, RunId, SessionId, StepId } from '../terms.js';
import type { InputOutcome, PendingInput } from './inputs.js';
import type { SessionScope } from './session-scope.js';

export type PolicyDecision =
  | { action: 'allow'; rule?: string; reason?: string; grant?: CapabilityGrant }
  | { action: 'deny'; reason: string; rule?: string }
  | {
      action: 'ask';
      reason: string;
      rule?: string;
      /** How long a person has to answer, and what happens when nobody does (deny). */
      timeoutMs?: number;
      defaultIfTimeout?: 'allow' | 'deny';
      /** The grant that applies if the call is approved. */
      grant?: CapabilityGrant;
      /** Whether "approve for this session" may be offered (never for Unsafe tools). */
      sessionApprovable?: boolean;
      /** What a session grant would cover; absent: every call of the tool. */
      sessionScope?: SessionScope;
    };

export interface PolicyContext {
  runId: RunId;
  sessionId: SessionId;
  stepId: StepId;
  readOnly: boolean;
}

export interface PolicyHook {
  decide(call: ToolCall, context: PolicyContext): Promise<PolicyDecision>;
}

export interface ApprovalRequest {
  id: string;
  runId: RunId;
  sessionId: SessionId;
  call: ToolCall;
  reason: string;
  rule?: string;
  timeoutMs?: number;
  defaultIfTimeout?: 'allow' | 'deny';
  sessionApprovable?: boolean;
  sessionScope?: SessionScope;
  signal: AbortSignal;
}

export interface ApprovalAnswer {
  approved: boolean;
  /** Who answered ('timeout' when nobody did). */
  by: string;
  timedOut?: boolean;
}

export interface ApprovalHook {
  request(approval: ApprovalRequest): Promise<ApprovalAnswer>;
}

/**
 * Where a run hears about the forms its tool calls raised (MCP elicitation): it emits
 * `input.requested` / `input.resolved` for those tied to it. The input broker implements it.
 */
export interface InputEvents {
  onRequest(listener: (pending: PendingInput) => void): () => void;
  onResolved(listener: (pending: PendingInput, outcome: InputOutcome) => void): () => void;
}
