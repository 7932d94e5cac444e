/**
 * The agent loop (#6): assemble context -> call the model (streaming) -> if it asks for tools:
 * ask the policy, execute (read-only calls in parallel, side effects in order), append results,
 * call the model again; otherwise the reply ends the run. Every step is written to SQLite as it
 * happens and every change is an event, so a killed process can resume and every surface (CLI,
 * UI, audit) reads the same story.
 */

import {
  type ImageBlock,
  type Message,
  type StopReason,
  type ToolCall,
  type ToolResultBlock,
  toolCallsOf,
  type Usage,
  userText,
  userTurn,
} from '../../../shared/messages.js';
import { CKP_ERRORS, categoryOfCkpCode, PincerError } from '../errors.js';
import type { ModelAccess, ModelEvent, OutsideSpend } from '../models/index.js';
import { describeNotice, fitRequestToContext, isModelError } from '../models/index.js';
import type { ApprovalHook, InputEvents, PolicyHook } from '../policy/index.js';
import type { RedactingStream, Redactor } from '../redaction/index.js';
import {
  type CapabilityGrant,
  type MessageId,
  newId,
  type RunId,
  type RunOrigin,
  type RunOutcome,
  type SessionId,
  type StepId,
  type TaskId,
  type TraceId,
} from '../terms.js';
import {
  checkReferences,
  planToolCall,
  type ResolveContext,
  resolveCall,
  type ToolCallProgram,
} from '../toolcall/index.js';
import type { ToolHost, ToolOutcome } from '../tools/index.js';
import {
  eventGrant,
  eventOrigin,
  eventUsage,
  type RunEvent,
  type RunEventBody,
  RunEventStream,
} from './events.js';
import { callSignature, DEFAULT_GUARDS, type Guards } from './guards.js';
import type { HistoryEntry, HistoryShaper } from './hooks.js';
import { Lanes } from './lanes.js';
import { advance, isFinal, type RunState, type RunTransition } from './state.js';
import { originOf, type RunRow, type RunStore } from './store.js';

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
  /** Applied to every model call of every run. */
  /** Read at each model call when a function (the user's settings change between runs). */
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

/** A refused call's result: the CKP error code and a sentence the model can act on. */
function refusal(error: string, code: number, message: string): ToolOutcome {
  return { content: JSON.stringify({ error, code, message }), isError: true, code };
}

/** Why the run's abort signal fired. */
type StopCause = 'cancelled' | 'run_timeout' | 'turn_timeout';

/** How a run ends early; caught inside the runtime, where it becomes the run's outcome. */
class RunStop extends PincerError {
  constructor(
    readonly outcome: RunOutcome,
    readonly transition: RunTransition,
    message: string,
    /** The CKP code of the failure when the protocol names it (a provider's quota: -32021). */
    readonly code?: number,
  ) {
    super(code === undefined ? 'internal' : categoryOfCkpCode(code), message);
  }

  override get ckpCode(): number | undefined {
    return this.code;
  }
}

export class AgentRuntime {
  private readonly lanes: Lanes;
  /** The runs executing or queued in this process: the one record of live runs. */
  private readonly live = new Map<RunId, RunHandle>();

  constructor(private readonly deps: RuntimeDeps) {
    this.lanes = new Lanes(deps.maxConcurrentRuns ?? 8);
  }

  /** Runs in the database that are not finished and not running in this process. */
  interrupted(): RunRow[] {
    return this.deps.store
      .listRuns({ limit: 1000 })
      .filter((run) => !isFinal(run.state) && !this.live.has(run.id));
  }

  /** Runs executing now (not those queued behind their session or the concurrency bound). */
  get activeRuns(): number {
    return this.lanes.active;
  }

  isLive(id: RunId): boolean {
    return this.live.has(id);
  }

  /** A run of this process that has not ended. */
  handle(id: RunId): RunHandle | undefined {
    return this.live.get(id);
  }

  /** Whether a run of this session has not ended. */
  isSessionBusy(sessionId: SessionId): boolean {
    for (const handle of this.live.values()) if (handle.sessionId === sessionId) return true;
    return false;
  }

  /** Cancels every run of this process and waits for each to record its end. */
  async stopAll(): Promise<void> {
    const handles = [...this.live.values()];
    for (const handle of handles) handle.cancel();
    await Promise.allSettled(handles.map((handle) => handle.done));
  }

  start(options: StartOptions): RunHandle {
    const { store } = this.deps;
    const sessionId = options.sessionId ?? store.createSession(options.text);
    if (!store.hasSession(sessionId)) store.createSession(options.text, sessionId);
    const runId = store.createRun({
      sessionId,
      taskId: newId<TaskId>('tsk'),
      traceId: options.parent?.traceId ?? options.traceId ?? newId<TraceId>('trc'),
      goal: options.text,
      options: {
        ...options.record,
        guards: options.guards ?? {},
        ...(options.calls || options.toolCall ? { direct: true } : {}),
        ...(options.origin ? { origin: options.origin } : {}),
      },
      parentRunId: options.parent?.runId,
    });
    return this.launch(runId, options, false);
  }

  /** Continues a run that stopped or whose process died, without repeating completed side effects. */
  resume(
    runId: RunId,
    options: { signal?: AbortSignal; guards?: Partial<Guards> } = {},
  ): RunHandle {
    const run = this.deps.store.getRun(runId);
    if (!run) throw new Error(`no run ${runId}`);
    if (this.live.has(runId)) throw new Error(`run ${runId} is running`);
    if (run.outcome === 'completed') throw new Error(`run ${runId} already completed`);
    return this.launch(runId, { text: run.goal, sessionId: run.sessionId, ...options }, true);
  }

  private launch(runId: RunId, options: StartOptions, resumed: boolean): RunHandle {
    const run = this.deps.store.getRun(runId) as RunRow;
    const events = new RunEventStream();
    const controller = new AbortController();
    const onCancel = () => controller.abort('cancelled' satisfies StopCause);
    options.signal?.addEventListener('abort', onCancel, { once: true });
    const guards: Guards = {
      ...DEFAULT_GUARDS,
      ...this.deps.guards,
      ...(run.options.guards as Partial<Guards>),
      ...options.guards,
    };
    const loop = new RunLoop(this.deps, run, events, controller, guards);
    const done = this.lanes
      .run(run.sessionId, () => loop.drive(options, resumed))
      .finally(() => {
        options.signal?.removeEventListener('abort', onCancel);
        this.live.delete(runId);
        events.close();
      });
    const handle = { runId, sessionId: run.sessionId, events, done, cancel: onCancel };
    this.live.set(runId, handle);
    return handle;
  }
}

/** One run's execution: its state, its history, its guards. */
class RunLoop {
  private state: RunState;
  private seq = 0;
  private stepId: StepId | undefined;
  private usage: Usage;
  private costUsd: number;
  private turns: number;
  private history: HistoryEntry[] = [];
  private lastMessageId: MessageId | null;
  private reply: Message | undefined;
  private lastSpend: { usage: Usage; costUsd: number } | undefined;
  private lastStop: StopReason | undefined;
  private readonly seen = new Map<string, number>();
  private readonly tools: ToolHost;
  private readonly policy: PolicyHook;
  private readonly approvals: ApprovalHook;

  constructor(
    private readonly deps: RuntimeDeps,
    private readonly run: RunRow,
    private readonly events: RunEventStream,
    private readonly controller: AbortController,
    private readonly guards: Guards,
  ) {
    this.state = run.state;
    this.usage = { ...run.usage };
    this.costUsd = run.costUsd;
    this.turns = run.turns;
    this.lastMessageId = run.lastMessageId;
    this.tools = deps.tools;
    this.policy = deps.policy;
    this.approvals = deps.approvals;
  }

  async drive(options: StartOptions, resumed: boolean): Promise<RunResult> {
    const { store } = this.deps;
    const timer = setTimeout(
      () => this.controller.abort('run_timeout' satisfies StopCause),
      this.guards.runTimeoutMs,
    );
    const stopInputs = this.followInputs(this.deps.inputs);
    try {
      const origin = originOf(this.run);
      this.emit({
        type: 'run.started',
        goal: this.run.goal,
        resumed,
        ...(this.run.parentRunId ? { parent_run_id: this.run.parentRunId } : {}),
        ...(options.parentSpanId && !resumed ? { parent_span_id: options.parentSpanId } : {}),
        ...(origin ? { origin: eventOrigin(origin) } : {}),
      });
      if (resumed) {
        // A run whose process died is still in an active state on disk: record that first.
        if (!isFinal(this.state)) this.go('fail');
        const stored = store.branch(this.lastMessageId);
        this.history = stored.map(({ id, message }) => ({ id, message }));
        this.go('start');
        // The repeat guard counts this run's calls only, not the session's earlier runs.
        for (const m of stored.filter((m) => m.runId === this.run.id)) {
          for (const call of toolCallsOf(m.message)) this.remember(call);
        }
        if (!this.run.startMessageId)
          this.append(userText(this.run.goal), this.lastMessageId, true);
        await this.finishInterruptedTools();
      } else {
        const parent =
          options.fromMessageId !== undefined
            ? options.fromMessageId
            : store.latestMessage(this.run.sessionId);
        this.history = store.branch(parent).map(({ id, message }) => ({ id, message }));
        this.go('start');
        this.append(userTurn(options.text, options.images), parent, true);
      }
      if (options.calls && !resumed) return await this.direct(options.calls);
      if (options.toolCall && !resumed) return await this.single(options.toolCall);
      if (resumed && this.run.options.direct === true)
        return this.end('completed', 'the interrupted calls were settled');
      await this.loop(options.requireToolFirst === true && !resumed);
      return this.end('completed', 'the model answered');
    } catch (error) {
      return this.stop(error);
    } finally {
      clearTimeout(timer);
      stopInputs();
    }
  }

  /**
   * The forms this run's tool calls raised, as events of this run: field names and who answered
   * with which action, never the values typed (those go to the server only).
   */
  private followInputs(inputs: InputEvents | undefined): () => void {
    if (!inputs) return () => undefined;
    const own = (runId: string) => runId === this.run.id;
    const offRequest = inputs.onRequest((pending) => {
      if (!own(pending.runId)) return;
      this.emit({
        type: 'input.requested',
        input_id: pending.id,
        ...(pending.callId ? { call_id: pending.callId } : {}),
        source: pending.source,
        fields: pending.fields.map((field) => field.name),
      });
    });
    const offResolved = inputs.onResolved((pending, outcome) => {
      if (!own(pending.runId)) return;
      const { answer } = outcome;
      this.emit({
        type: 'input.resolved',
        input_id: pending.id,
        ...(pending.callId ? { call_id: pending.callId } : {}),
        action: answer.action,
        by: outcome.by,
        ...(answer.action === 'accept' ? { fields: Object.keys(answer.content) } : {}),
      });
    });
    return () => {
      offRequest();
      offResolved();
    };
  }

  private async loop(requireTool: boolean): Promise<void> {
    // The context (identity, memory search, skills) depends on the run's goal, not on the turn:
    // built once per run.
    const system = await this.deps.system?.({ sessionId: this.run.sessionId, text: this.run.goal });
    for (let first = true; ; first = false) {
      this.absorbOutsideSpend();
      this.checkBudget();
      const request = {
        system,
        // A copy: the provider may read it lazily while the loop appends to the history.
        messages:
          this.deps.history?.view(this.run.sessionId, this.history) ??
          this.history.map((entry) => entry.message),
        tools: this.tools.definitions({ runId: this.run.id, sessionId: this.run.sessionId }),
        conversationId: this.run.sessionId,
        ...(typeof this.deps.generation === 'function'
          ? this.deps.generation()
          : this.deps.generation),
        ...(first && requireTool ? { toolChoice: 'required' as const } : {}),
      };
      this.go('call_model');
      // Fitted to the model's window before it is sent; what was left out is said.
      const fitted = await fitRequestToContext(request, await this.deps.model.window?.());
      if (fitted.notice)
        this.emit({
          type: 'context.fitted',
          ...fitted.notice,
          note: describeNotice(fitted.notice),
        });
      this.stepId = this.deps.store.startStep(this.run.id, 'model');
      const message = await this.callModel(fitted.request);
      this.deps.store.endStep(this.stepId, this.lastSpend);
      this.deps.history?.afterTurn?.(this.run.sessionId, [...this.history]);
      const calls = toolCallsOf(message);
      if (calls.length === 0) {
        this.go('answered');
        return;
      }
      this.go('tool_needed');
      // A reply cut off at max_tokens may hold a call whose arguments stop half-way, yet parse:
      // none of its calls runs, and the model is told why so it can write them again.
      await this.toolStep(calls, this.lastStop === 'max_tokens');
      this.go('continue');
    }
  }

  /** One step's calls: recorded, authorized, run, and their results appended. */
  private async toolStep(calls: ToolCall[], truncated = false): Promise<ToolResultBlock[]> {
    for (const call of calls) this.remember(call);
    this.stepId = this.deps.store.startStep(this.run.id, 'tools');
    this.deps.store.requestToolCalls(
      this.run.id,
      this.stepId,
      calls.map((call) => ({ ...call, readOnly: this.tools.isReadOnly(call.name) })),
    );
    const cut = new Map<string, ToolOutcome>();
    if (truncated) {
      for (const call of calls) {
        this.emit({ type: 'tool.requested', call, read_only: this.tools.isReadOnly(call.name) });
        const refused = refusal(
          'truncated_reply',
          CKP_ERRORS.invalidParams,
          'not run: your reply was cut off at the output token limit, so this call may be incomplete; write it again, shorter',
        );
        cut.set(call.id, this.settle(call, refused, 0, false, 'denied'));
      }
    }
    const results = await this.runTools(calls, cut);
    this.append({ role: 'user', content: results }, this.lastMessageId, false);
    this.deps.store.endStep(this.stepId);
    this.go('tools_done');
    return results;
  }

  /**
   * The user's own tool calls. Each plan step is recorded as an assistant tool-use message so
   * the session's history stays well formed for the model's next turn; `$prev` reads the step
   * before (its JSON when the tool returned JSON). A failed step ends the chain.
   */
  private async direct({ program, context }: DirectCalls): Promise<RunResult> {
    try {
      checkReferences(program, context);
    } catch (error) {
      throw new RunStop('denied', 'deny', (error as Error).message);
    }
    let previous = context.previous;
    const steps = planToolCall(program).steps;
    for (const [index, step] of steps.entries()) {
      if (index > 0) this.go('continue');
      const invokes = step.kind === 'call' ? [step.call] : step.calls;
      let calls: ToolCall[];
      try {
        calls = invokes.map((invoke) => {
          const resolved = resolveCall(invoke, context, previous);
          return { id: newId<string>('call'), name: resolved.tool, input: resolved.args };
        });
      } catch (error) {
        throw new RunStop('denied', 'deny', (error as Error).message);
      }
      this.go('user_call');
      this.append(
        { role: 'assistant', content: calls.map((call) => ({ type: 'tool_use', ...call })) },
        this.lastMessageId,
        false,
      );
      const results = await this.toolStep(calls);
      const failed = results.find((result) => result.isError);
      if (failed) {
        this.go('answered');
        const name = calls.find((call) => call.id === failed.toolUseId)?.name ?? 'a tool';
        const rest = steps.length - index - 1;
        return this.end(
          'completed',
          rest ? `${name} failed; ${rest} later step(s) not run` : `${name} failed`,
        );
      }
      const last = results.at(-1);
      previous = { result: last ? jsonOrText(last.content) : undefined };
    }
    this.go('answered');
    return this.end('completed', 'the requested tools ran');
  }

  /** A protocol client's one call, recorded as an assistant tool-use message like a model's. */
  private async single(given: {
    name: string;
    input: Record<string, unknown>;
  }): Promise<RunResult> {
    const call: ToolCall = { id: newId<string>('call'), name: given.name, input: given.input };
    this.go('user_call');
    this.append(
      { role: 'assistant', content: [{ type: 'tool_use', ...call }] },
      this.lastMessageId,
      false,
    );
    const [result] = await this.toolStep([call]);
    this.go('answered');
    return this.end(
      'completed',
      result?.isError ? `${call.name} failed` : 'the requested tool ran',
    );
  }

  private async callModel(request: {
    system?: string;
    messages: Message[];
    tools: ReturnType<ToolHost['definitions']>;
    conversationId: string;
    maxTokens?: number;
    temperature?: number;
    toolChoice?: 'required';
  }): Promise<Message> {
    const turnController = new AbortController();
    const turnTimer = setTimeout(
      () => turnController.abort('turn_timeout' satisfies StopCause),
      this.guards.turnTimeoutMs,
    );
    const signal = AbortSignal.any([this.controller.signal, turnController.signal]);
    const turn = this.deps.model.turn({ ...request, signal });
    let finish: Extract<ModelEvent, { type: 'finish' }> | undefined;
    const deltas = this.deltaStreams();
    try {
      for await (const event of turn.events) {
        if (event.type === 'text_delta') deltas.push('text', event.text);
        else if (event.type === 'reasoning_delta') deltas.push('reasoning', event.text);
        // The tool's worker starts while the model still writes the arguments.
        else if (event.type === 'tool_call_start') this.tools.prepare(event.name);
        else if (event.type === 'finish') finish = this.redactedFinish(event);
        else if (event.type === 'connection_lost') {
          deltas.end();
          this.reply = this.redactedMessage(event.partial);
          if (this.reply.content.length) this.append(this.reply, this.lastMessageId, false);
          throw new RunStop('model_error', 'fail', event.error.message);
        }
      }
      deltas.end();
    } catch (error) {
      if (signal.aborted) throw this.abortStop(signal, turnController.signal);
      if (error instanceof RunStop) throw error;
      if (isModelError(error))
        throw new RunStop('model_error', 'fail', error.message, error.ckpCode);
      throw new RunStop('model_error', 'fail', String(error));
    } finally {
      clearTimeout(turnTimer);
    }
    if (!finish) throw new RunStop('model_error', 'fail', 'the model stream ended without a reply');
    this.turns++;
    this.usage = {
      inputTokens: this.usage.inputTokens + finish.usage.inputTokens,
      outputTokens: this.usage.outputTokens + finish.usage.outputTokens,
    };
    const cost = turn.cost(finish.usage);
    this.costUsd += cost;
    this.lastSpend = { usage: finish.usage, costUsd: cost };
    this.reply = finish.message;
    this.append(finish.message, this.lastMessageId, false);
    // Spending so far is on record while the run goes on: a sub-agent's budget is what is left.
    this.deps.store.updateRun(this.run.id, {
      turns: this.turns,
      usage: this.usage,
      costUsd: this.costUsd,
    });
    const fallbacks = turn.fallbacks?.() ?? [];
    this.emit({
      type: 'model.finished',
      model: turn.servedBy(),
      stop_reason: finish.stopReason,
      usage: eventUsage(finish.usage),
      cost_usd: cost,
      ...(fallbacks.length ? { fallbacks } : {}),
    });
    if (finish.stopReason === 'cancelled' || signal.aborted)
      throw this.abortStop(signal, turnController.signal);
    this.lastStop = finish.stopReason;
    return finish.message;
  }

  /**
   * Results in call order. Policy decisions (and approvals) are taken one call at a time, in
   * order, so a person is never asked two things at once; then allowed read-only calls run in
   * parallel batches while each side effect is a barrier that runs alone, in order.
   */
  private async runTools(
    calls: ToolCall[],
    known: Map<string, ToolOutcome>,
  ): Promise<ToolResultBlock[]> {
    const results = new Map<string, ToolOutcome>(known);
    const pending = calls.filter((call) => !results.has(call.id));
    for (const call of pending)
      this.emit({ type: 'tool.requested', call, read_only: this.tools.isReadOnly(call.name) });
    const allowed: Array<{ call: ToolCall; grant?: CapabilityGrant }> = [];
    for (const call of pending) {
      const invalid = await this.tools.validate(call);
      if (invalid) {
        results.set(call.id, this.settle(call, invalid));
        continue;
      }
      const verdict = await this.authorize(call);
      if ('content' in verdict) results.set(call.id, verdict);
      else allowed.push({ call, grant: verdict.grant });
    }
    let batch: typeof allowed = [];
    const flush = async () => {
      const running = batch;
      batch = [];
      for (let at = 0; at < running.length; at += this.guards.maxParallelTools) {
        const slice = running.slice(at, at + this.guards.maxParallelTools);
        const outcomes = await Promise.all(
          slice.map(({ call, grant }) => this.execute(call, grant)),
        );
        for (const [i, { call }] of slice.entries())
          results.set(call.id, outcomes[i] as ToolOutcome);
      }
    };
    for (const entry of allowed) {
      if (this.tools.isReadOnly(entry.call.name)) {
        batch.push(entry);
        continue;
      }
      await flush();
      results.set(entry.call.id, await this.execute(entry.call, entry.grant));
    }
    await flush();
    return calls.map((call) => {
      const outcome = results.get(call.id) ?? { content: 'no result', isError: true };
      const block: ToolResultBlock = {
        type: 'tool_result',
        toolUseId: call.id,
        content: outcome.content,
      };
      if (outcome.isError) block.isError = true;
      return block;
    });
  }

  /** The policy's answer for one call: a grant to run it, or the refusal as its result. */
  private async authorize(call: ToolCall): Promise<{ grant?: CapabilityGrant } | ToolOutcome> {
    const stepId = this.stepId as StepId;
    const readOnly = this.tools.isReadOnly(call.name);
    const decision = await this.policy.decide(call, {
      runId: this.run.id,
      sessionId: this.run.sessionId,
      stepId,
      readOnly,
    });
    this.emit({
      type: 'policy.decided',
      call_id: call.id,
      decision: decision.action,
      ...(decision.action !== 'allow' ? { reason: decision.reason } : {}),
      ...(decision.rule ? { rule: decision.rule } : {}),
      ...(decision.action !== 'deny' && decision.grant
        ? { grant: eventGrant(decision.grant) }
        : {}),
    });
    if (decision.action !== 'deny' && decision.prediction) {
      const { worldModel, risk, summary, cost, unavailable } = decision.prediction;
      this.emit({
        type: 'world_model.predicted',
        call_id: call.id,
        world_model: worldModel,
        risk,
        summary,
        ...(cost !== undefined ? { cost } : {}),
        ...(unavailable !== undefined ? { unavailable } : {}),
      });
    }
    if (decision.action === 'allow') return { grant: decision.grant };
    if (decision.action === 'deny') {
      const refused = refusal('policy_denied', -32011, `denied by policy: ${decision.reason}`);
      return this.settle(call, refused, 0, false, 'denied');
    }
    const approvalId = newId<string>('apr');
    this.go('approval_needed');
    this.emit({
      type: 'approval.requested',
      approval_id: approvalId,
      call,
      reason: decision.reason,
    });
    const answer = await this.approvals.request({
      id: approvalId,
      runId: this.run.id,
      call,
      sessionId: this.run.sessionId,
      reason: decision.reason,
      rule: decision.rule,
      timeoutMs: decision.timeoutMs,
      defaultIfTimeout: decision.defaultIfTimeout,
      sessionApprovable: decision.sessionApprovable,
      ...(decision.sessionScope ? { sessionScope: decision.sessionScope } : {}),
      ...(decision.prediction ? { prediction: decision.prediction } : {}),
      signal: this.controller.signal,
    });
    this.emit({
      type: 'approval.resolved',
      approval_id: approvalId,
      approved: answer.approved,
      by: answer.by,
    });
    this.go('approval_resolved');
    if (this.controller.signal.aborted) throw this.abortStop(this.controller.signal);
    if (answer.approved) return { grant: decision.grant };
    const outcome = answer.timedOut
      ? refusal('approval_timeout', -32012, 'nobody approved this call in time')
      : refusal('approval_denied', -32013, `not approved (${answer.by})`);
    return this.settle(call, outcome, 0, false, 'denied');
  }

  private async execute(call: ToolCall, grant?: CapabilityGrant): Promise<ToolOutcome> {
    this.deps.store.markToolStarted(this.run.id, call.id);
    this.emit({ type: 'tool.started', call_id: call.id, name: call.name });
    const started = performance.now();
    let outcome: ToolOutcome;
    try {
      outcome = await this.tools.execute(call, {
        signal: this.controller.signal,
        runId: this.run.id,
        stepId: this.stepId as StepId,
        grant,
      });
    } catch (error) {
      outcome = {
        content: `tool failed: ${error instanceof Error ? error.message : String(error)}`,
        isError: true,
      };
    }
    if (this.controller.signal.aborted) throw this.abortStop(this.controller.signal);
    return this.settle(call, outcome, performance.now() - started);
  }

  private settle(
    call: ToolCall,
    outcome: ToolOutcome,
    durationMs = 0,
    replayed = false,
    status: 'completed' | 'denied' = 'completed',
  ): ToolOutcome {
    if (!replayed)
      this.deps.store.finishToolCall(this.run.id, call.id, {
        content: outcome.content,
        isError: outcome.isError === true,
      });
    this.emit({
      type: 'tool.finished',
      call_id: call.id,
      name: call.name,
      is_error: outcome.isError === true,
      duration_ms: Math.round(durationMs),
      status: status === 'denied' ? 'denied' : outcome.isError ? 'error' : 'ok',
      ...(outcome.isError && outcome.code !== undefined ? { code: outcome.code } : {}),
      output: outcome.content,
      ...(replayed ? { replayed } : {}),
    });
    return outcome;
  }

  /**
   * Resume after a crash between the model asking for tools and their results being saved:
   * completed calls keep their recorded results, read-only ones run again, and a side effect
   * that was started but never recorded is NOT repeated: the model is told it was interrupted.
   */
  private async finishInterruptedTools(): Promise<void> {
    const last = this.history.at(-1)?.message;
    if (!last || last.role !== 'assistant') return;
    const calls = toolCallsOf(last);
    if (calls.length === 0) {
      // The answer was saved before the process died: nothing left to do.
      this.go('call_model');
      this.go('answered');
      throw new RunStop('completed', 'answered', 'the model had already answered');
    }
    this.go('call_model');
    this.go('tool_needed');
    const rows = new Map(
      this.deps.store.lastToolCalls(this.run.id).map((row) => [row.callId, row]),
    );
    this.stepId =
      rows.values().next().value?.stepId ?? this.deps.store.startStep(this.run.id, 'tools');
    if (rows.size === 0) {
      this.deps.store.requestToolCalls(
        this.run.id,
        this.stepId,
        calls.map((c) => ({ ...c, readOnly: this.tools.isReadOnly(c.name) })),
      );
    }
    const known = new Map<string, ToolOutcome>();
    for (const call of calls) {
      const row = rows.get(call.id);
      if (row?.status === 'completed' || row?.status === 'interrupted') {
        known.set(
          call.id,
          this.settle(call, { content: row.result ?? '', isError: row.isError }, 0, true),
        );
      } else if (row?.status === 'started' && !row.readOnly) {
        const outcome = {
          content: `${call.name} was interrupted while running and was not repeated; check whether it took effect before trying again`,
          isError: true,
        };
        this.deps.store.finishToolCall(
          this.run.id,
          call.id,
          { content: outcome.content, isError: true },
          'interrupted',
        );
        known.set(call.id, this.settle(call, outcome, 0, true));
      }
    }
    const results = await this.runTools(calls, known);
    this.append({ role: 'user', content: results }, this.lastMessageId, false);
    this.deps.store.endStep(this.stepId);
    this.go('tools_done');
    this.go('continue');
  }

  private remember(call: ToolCall): void {
    const signature = callSignature(call.name, call.input);
    const count = (this.seen.get(signature) ?? 0) + 1;
    this.seen.set(signature, count);
    if (count >= this.guards.maxIdenticalCalls) {
      throw new RunStop(
        'repeated_tool_call',
        'halt',
        `${call.name} was called ${count} times with the same arguments`,
      );
    }
  }

  /** Adds what the run's tool calls spent on its behalf (sampling) since the last look. */
  private absorbOutsideSpend(): void {
    const spend = this.deps.outsideSpend?.take(this.run.id);
    if (!spend) return;
    this.usage = {
      inputTokens: this.usage.inputTokens + spend.usage.inputTokens,
      outputTokens: this.usage.outputTokens + spend.usage.outputTokens,
    };
    this.costUsd += spend.costUsd;
  }

  private checkBudget(): void {
    const { maxTurns, maxTokens, maxCostUsd } = this.guards;
    if (this.turns >= maxTurns)
      throw new RunStop('max_turns', 'halt', `reached the limit of ${maxTurns} model calls`);
    const tokens = this.usage.inputTokens + this.usage.outputTokens;
    if (tokens >= maxTokens)
      throw new RunStop('max_tokens', 'halt', `used ${tokens} tokens (limit ${maxTokens})`);
    const caps = this.deps.caps;
    if (caps?.tokensPerHour) {
      const { tokens: hour } = this.deps.store.spentSince(new Date(Date.now() - 3_600_000));
      if (hour >= caps.tokensPerHour) {
        throw new RunStop(
          'max_tokens',
          'halt',
          `policy cap: ${hour} tokens in the last hour (limit ${caps.tokensPerHour})`,
        );
      }
    }
    if (caps?.costPerDayUsd) {
      const { costUsd: day } = this.deps.store.spentSince(new Date(Date.now() - 86_400_000));
      if (day >= caps.costPerDayUsd) {
        throw new RunStop(
          'max_cost',
          'halt',
          `policy cap: $${day.toFixed(4)} spent in the last 24 hours (limit $${caps.costPerDayUsd})`,
        );
      }
    }
    if (this.costUsd >= maxCostUsd) {
      throw new RunStop(
        'max_cost',
        'halt',
        `spent $${this.costUsd.toFixed(4)} (limit $${maxCostUsd})`,
      );
    }
  }

  private abortStop(signal: AbortSignal, turn?: AbortSignal): RunStop {
    const cause = (turn?.aborted ? turn.reason : signal.reason) as StopCause;
    if (cause === 'run_timeout')
      return new RunStop(
        'run_timeout',
        'time_out',
        `the run took longer than ${this.guards.runTimeoutMs} ms`,
      );
    if (cause === 'turn_timeout')
      return new RunStop(
        'turn_timeout',
        'time_out',
        `a model call took longer than ${this.guards.turnTimeoutMs} ms`,
      );
    return new RunStop('cancelled', 'halt', 'cancelled');
  }

  private append(message: Message, parent: MessageId | null, isStart: boolean): void {
    const id = this.deps.store.addMessage(this.run.sessionId, parent, this.run.id, message);
    this.history.push({ id, message });
    this.lastMessageId = id;
    this.deps.store.updateRun(this.run.id, {
      lastMessageId: id,
      ...(isStart ? { startMessageId: id } : {}),
    });
  }

  private go(transition: RunTransition): void {
    const from = this.state;
    this.state = advance(from, transition);
    this.deps.store.updateRun(this.run.id, { state: this.state });
    this.emit({ type: 'state.changed', from, to: this.state, transition });
  }

  private stop(error: unknown): RunResult {
    const stop =
      error instanceof RunStop
        ? error
        : new RunStop(
            'model_error',
            'fail',
            error instanceof Error ? error.message : String(error),
          );
    if (stop.outcome === 'completed') return this.end('completed', stop.message);
    if (!isFinal(this.state)) this.go(stop.transition);
    return this.end(stop.outcome, stop.message, stop.code);
  }

  private end(outcome: RunOutcome, given: string, code?: number): RunResult {
    this.absorbOutsideSpend();
    // The reason may quote a model's or a tool's error: stored and returned redacted.
    const reason = this.deps.redactor ? this.deps.redactor.redact(given).text : given;
    this.deps.store.updateRun(this.run.id, {
      outcome,
      reason,
      turns: this.turns,
      usage: this.usage,
      costUsd: this.costUsd,
    });
    this.stepId = undefined;
    this.emit({
      type: 'run.finished',
      outcome,
      reason,
      usage: eventUsage(this.usage),
      cost_usd: this.costUsd,
      turns: this.turns,
      ...(code !== undefined ? { code } : {}),
    });
    return {
      runId: this.run.id,
      sessionId: this.run.sessionId,
      state: this.state,
      outcome,
      reason,
      ...(code !== undefined ? { code } : {}),
      reply: this.reply,
      usage: this.usage,
      costUsd: this.costUsd,
      turns: this.turns,
    };
  }

  /**
   * The model's deltas as events, one redacting stream per kind: a secret sent a few characters
   * at a time is held back until it is whole, then shown redacted; `end` releases the rest.
   */
  private deltaStreams() {
    const redactor = this.deps.redactor;
    const streams = new Map<'text' | 'reasoning', RedactingStream>();
    const send = (kind: 'text' | 'reasoning', text: string) => {
      if (text) this.emit({ type: 'model.delta', kind, text });
    };
    return {
      push: (kind: 'text' | 'reasoning', text: string) => {
        if (!redactor) return send(kind, text);
        let stream = streams.get(kind);
        if (!stream) {
          stream = redactor.stream();
          streams.set(kind, stream);
        }
        send(kind, stream.push(text));
      },
      end: () => {
        for (const [kind, stream] of streams) send(kind, stream.end());
        streams.clear();
      },
    };
  }

  /** A reply as it may be stored and returned: its text and reasoning redacted. */
  private redactedMessage(message: Message): Message {
    const redactor = this.deps.redactor;
    if (!redactor) return message;
    return {
      ...message,
      content: message.content.map((block) =>
        block.type === 'text' || block.type === 'reasoning'
          ? { ...block, text: redactor.redact(block.text).text }
          : block,
      ),
    };
  }

  private redactedFinish(
    event: Extract<ModelEvent, { type: 'finish' }>,
  ): Extract<ModelEvent, { type: 'finish' }> {
    return { ...event, message: this.redactedMessage(event.message) };
  }

  private emit(body: RunEventBody): void {
    const event = {
      ...body,
      trace_id: this.run.traceId,
      task_id: this.run.taskId,
      session_id: this.run.sessionId,
      run_id: this.run.id,
      ...(this.stepId ? { step_id: this.stepId } : {}),
      seq: ++this.seq,
      at: new Date().toISOString(),
    } as RunEvent;
    const visible = this.deps.redactor ? this.deps.redactor.redactValue(event) : event;
    this.events.emit(visible);
    this.deps.onEvent?.(visible);
  }
}

/** A tool's result as `$prev` sees it: parsed when it is JSON, the text otherwise. */
function jsonOrText(content: ToolResultBlock['content']): unknown {
  if (typeof content !== 'string')
    return content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  try {
    return JSON.parse(content);
  } catch {
    return content;
  }
}
