/**
 * What the loop needs from the rest of Pincer, as interfaces: the model, the tools, the policy
 * and approvals. All are required: there is no allow-everything default, and the agent root
 * (core/agent) is where production code gets them.
 */
import type { Message, ToolCall, ToolDef, Usage } from '../../../shared/messages.js';
import type { ModelRouter, RouteOptions } from '../models/router.js';
import type { ModelEvent, ModelPricing, ModelProvider, ModelRequest } from '../models/types.js';
import type { CapabilityGrant, RunId, SessionId, StepId } from './terms.js';

/** One model call of a run. */
export interface ModelTurn {
  events: AsyncIterable<ModelEvent>;
  /** Cost in USD of the turn, known once the stream ended. */
  cost(usage: Usage): number;
  /** The model that served (after any fallback). */
  servedBy(): string;
  /** Why earlier candidates failed, in the order tried. */
  fallbacks?(): string[];
}

export interface ModelAccess {
  turn(request: ModelRequest): ModelTurn;
}

export function viaProvider(
  provider: ModelProvider,
  model: string,
  pricing: ModelPricing = { inputPer1k: 0, outputPer1k: 0 },
): ModelAccess {
  return {
    turn: (request) => ({
      events: provider.stream(model, request),
      cost: (usage) =>
        (usage.inputTokens / 1000) * pricing.inputPer1k +
        (usage.outputTokens / 1000) * pricing.outputPer1k,
      servedBy: () => `${provider.id}/${model}`,
    }),
  };
}

export function viaRouter(router: ModelRouter, options: Omit<RouteOptions, 'signal'>): ModelAccess {
  return {
    turn: (request) => {
      const stream = router.stream(request, { ...options, signal: request.signal });
      return {
        events: stream,
        cost: () => stream.report.costUsd,
        servedBy: () => stream.report.served ?? options.model ?? 'unknown',
        fallbacks: () => stream.report.causes.map((cause) => cause.message),
      };
    },
  };
}

export interface ToolRunContext {
  signal: AbortSignal;
  runId: RunId;
  stepId: StepId;
  grant?: CapabilityGrant;
}

export interface ToolOutcome {
  content: string;
  isError?: boolean;
  /** The CKP code of a refusal or failure the protocol names (policy, approval, sandbox, timeout). */
  code?: number;
}

export interface ToolHost {
  /** The tools the model may see in this run (model-facing names). */
  definitions(): ToolDef[];
  /** No side effects: may run in parallel, and may run again when a run resumes. */
  isReadOnly(name: string): boolean;
  /**
   * Unknown tool or arguments that break the schema: the error result, given before the policy
   * is asked (a person is never asked to approve a call that cannot run). Undefined: valid.
   * Required, so a decorator that forgets it does not type-check.
   */
  validate(call: ToolCall): ToolOutcome | undefined;
  /** Runs one call. Tool failures come back as `isError` results; it must honour `signal`. */
  execute(call: ToolCall, context: ToolRunContext): Promise<ToolOutcome>;
}

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

/** A stored message of the run's branch, as the history hook sees it. */
export interface HistoryEntry {
  id: string;
  message: Message;
}

/**
 * What the model sees of a session's history, and what happens after each reply: memory's
 * compaction (#10) shows a summary in place of older turns and summarizes in the background.
 * The stored history is never changed by it.
 */
export interface HistoryShaper {
  view(sessionId: SessionId, entries: readonly HistoryEntry[]): Message[];
  /** Called after each model reply; must not throw and must not hold the run up. */
  afterTurn?(sessionId: SessionId, entries: readonly HistoryEntry[]): void;
}
