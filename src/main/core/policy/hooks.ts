/**
 * What the runtime asks of the policy and of approvals. Both are required dependencies of a
 * run: there is no allow-everything default; the agent root wires the real engine and broker.
 */
import type { ToolCall } from '../../../shared/messages.js';
import type { CapabilityGrant, RunId, SessionId, StepId } from '../terms.js';
import type { InputOutcome, PendingInput } from './inputs.js';
import type { SessionScope } from './session-scope.js';

/**
 * What a declared world model (CKP 0.3.0 WorldModel) expects a call to do, asked before the call
 * runs. Its text is a model's or a tool's output: shown to the person, never acted on.
 */
export interface Prediction {
  /** The WorldModel primitive that made it. */
  worldModel: string;
  /** What the call is expected to change or show, in a sentence or two. */
  summary: string;
  risk: 'low' | 'medium' | 'high' | 'unknown';
  /** What the call is expected to cost (time, money, tokens), as the backend put it. */
  cost?: string;
  /** Why no prediction came (the backend failed, timed out, or is not one Pincer can run). */
  unavailable?: string;
}

export type PolicyDecision =
  | {
      action: 'allow';
      rule?: string;
      reason?: string;
      grant?: CapabilityGrant;
      prediction?: Prediction;
    }
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
      prediction?: Prediction;
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
  /** The world model's expectation of the call, shown beside it. */
  prediction?: Prediction;
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
