/**
 * What the runtime is given (its parts and hooks), what a run is started with, and what it
 * hands back: the runtime's contract with the agent that assembles it and the surfaces that
 * start runs.
 */
import type { ImageBlock, Message, Usage } from '../../../shared/messages.js';
import type { ModelAccess, OutsideSpend } from '../models/index.js';
import type { ApprovalHook, InputEvents, PolicyHook } from '../policy/index.js';
import type { Redactor } from '../redaction/index.js';
import type { MessageId, RunId, RunOrigin, RunOutcome, SessionId, TraceId } from '../terms.js';
import type { ResolveContext, ToolCallProgram } from '../toolcall/index.js';
import type { ToolHost } from '../tools/index.js';
import type { RunEvent, RunEventStream } from './events.js';
import type { Guards } from './guards.js';
import type { HistoryShaper } from './hooks.js';
import type { RunState } from './state.js';
import type { RunStore } from './store.js';
export interface GenerationOptions {
  maxTokens?: number;
  temperature?: number;
}

export interface RuntimeDeps {
  store: RunStore;
  model: ModelAccess;
  /** Spending a run did outside its model calls (an MCP server's sampling), counted as its own. */
  outsideSpend?: OutsideSpend;
  tools: ToolHost;
  /** Decides every tool call; no call runs without a decision. */
  policy: PolicyHook;
  /** Where "ask" decisions go. */
  approvals: ApprovalHook;
  /** The forms a run's tool calls raise (MCP elicitation): each run emits events for its own. */
  inputs?: InputEvents;
  /** The system context (identity, memory, skills), assembled once per run for its goal. */
  system?: (request: SystemRequest) => string | Promise<string>;
  guards?: Partial<Guards>;
  maxConcurrentRuns?: number;
  /**
   * Applied to every model call of every run; read at each model call when a function (the
   * user's settings change between runs).
   */
  generation?: GenerationOptions | (() => GenerationOptions);
  /**
   * The agent's redactor: every event is redacted before anyone sees it, the model's deltas
   * through a stream that holds back what could still become a secret, and its replies before
   * they are stored or returned.
   */
  redactor?: Redactor;
  /** What the model sees of the history (compaction), and a background step after replies. */
  history?: HistoryShaper;
  /** Called with every event of every run (audit, telemetry). */
  onEvent?: (event: RunEvent) => void;
  /** Spending caps across all runs (CKP policy `rate_limits`), checked before each model call. */
  caps?: { tokensPerHour?: number; costPerDayUsd?: number };
}

/** What the system hook may tailor its text to: memories and skills match the latest user text. */
export interface SystemRequest {
  sessionId: SessionId;
  text: string;
}

export interface StartOptions {
  text: string;
  /**
   * Images that go with the text in the user's turn (checked by the caller: see
   * agent/images.ts). Stored with the message like any content; the run's goal stays the text.
   */
  images?: ImageBlock[];
  sessionId?: SessionId;
  /** Branch: start from this earlier message instead of the session's newest one (null: from
   * the start of the conversation, a new first message beside the old). */
  fromMessageId?: MessageId | null;
  guards?: Partial<Guards>;
  signal?: AbortSignal;
  /** The run's first model call must call a tool (later calls choose freely). */
  requireToolFirst?: boolean;
  /** The run that delegated this one (agents/delegate): the child joins its trace. */
  parent?: { runId: RunId; traceId: TraceId };
  /** The trace to join when the caller is in another process (a swarm leader's run). */
  traceId?: TraceId;
  /** With `traceId`: the OTel span the run's span is a child of (a swarm delegation's). */
  parentSpanId?: string;
  /** Kept with the run's options (what a delegated run may use, its budget). */
  record?: Record<string, unknown>;
  /**
   * The user typed tool calls (`@fs/list{path="."} -> ...`): run them under the same policy,
   * approvals and audit as a model's calls, in plan order, and end without calling the model.
   */
  calls?: DirectCalls;
  /** The channel or schedule that started the run (none: a person at a window or terminal). */
  origin?: RunOrigin;
  /**
   * One tool call given as JSON by a protocol client (CKP `claw.tool.call`, MCP `tools/call`):
   * validated, decided by the policy, approved, run, screened and audited like a model's call;
   * the run ends without calling the model.
   */
  toolCall?: { name: string; input: Record<string, unknown> };
}

export interface DirectCalls {
  program: ToolCallProgram;
  /** What `$ctx`, `$env` (policy-granted names only, never secrets) and `$prev` may read. */
  context: ResolveContext;
}

export interface RunResult {
  runId: RunId;
  sessionId: SessionId;
  state: RunState;
  outcome: RunOutcome;
  reason: string;
  /** The CKP code of the failure that ended the run, when the protocol names it. */
  code?: number;
  /** The model's last message (a partial one when the run was cut short). */
  reply?: Message;
  usage: Usage;
  costUsd: number;
  turns: number;
}

export interface RunHandle {
  runId: RunId;
  sessionId: SessionId;
  events: RunEventStream;
  done: Promise<RunResult>;
  cancel(): void;
}
