/**
 * The tool host contract the runtime calls: validate before the policy is asked, then execute.
 * The registry implements it; decorators (policy screening, the sandbox) keep every method.
 */
import type { ToolCall, ToolDef } from '../../../shared/messages.js';
import type { CapabilityGrant, RunId, SessionId, StepId } from '../terms.js';

/** The run a tool list is for (a conversation may have tools turned off). */
export interface ToolScope {
  runId: RunId;
  sessionId: SessionId;
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
  /** The tools the model may see (model-facing names); `scope`: in that run. */
  definitions(scope?: ToolScope): ToolDef[];
  /** No side effects: may run in parallel, and may run again when a run resumes. */
  isReadOnly(name: string): boolean;
  /**
   * Unknown tool or arguments that break the schema: the error result, given before the policy
   * is asked (a person is never asked to approve a call that cannot run). Undefined: valid.
   * Required, so a decorator that forgets it does not type-check.
   */
  validate(call: ToolCall): Promise<ToolOutcome | undefined>;
  /** Runs one call. Tool failures come back as `isError` results; it must honour `signal`. */
  execute(call: ToolCall, context: ToolRunContext): Promise<ToolOutcome>;
  /**
   * The model has begun writing a call of `name`: get ready to run it (start its sandbox worker)
   * while the arguments still stream. Runs nothing and decides nothing. Required, like validate.
   */
  prepare(name: string): void;
}
