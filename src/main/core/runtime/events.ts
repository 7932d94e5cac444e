/**
 * One typed event stream per run. Every event carries the ids that tie it to its trace, task,
 * session, run and step, so the CLI (`--json`), the UI, the audit log and telemetry all read the same
 * record. Field names are snake_case: the stream is a wire format (JSON lines, IPC).
 */
import type { Message, ToolCall, Usage } from '../../../shared/messages.js';
import type {
  CapabilityGrant,
  MessageId,
  RunId,
  RunOrigin,
  RunOutcome,
  SessionId,
  StepId,
  StepKind,
  TaskId,
  TraceId,
} from '../terms.js';
import type { RunState, RunTransition } from './state.js';

/** Token counts as the event stream spells them (snake_case, like every other field of it). */
export interface EventUsage {
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens?: number;
  reasoning_tokens?: number;
}

/** A model's usage in the event stream's spelling. */
export function eventUsage(usage: Usage): EventUsage {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    ...(usage.cachedInputTokens !== undefined
      ? { cached_input_tokens: usage.cachedInputTokens }
      : {}),
    ...(usage.reasoningTokens !== undefined ? { reasoning_tokens: usage.reasoningTokens } : {}),
  };
}

/** Where a background run came from, in the event stream's spelling. */
export interface EventOrigin {
  channel: string;
  type: string;
  user_id?: string;
  chat_id?: string;
  schedule?: string;
  queue?: string;
  message?: string;
  role?: RunOrigin['role'];
}

export function eventOrigin(origin: RunOrigin): EventOrigin {
  const { userId, chatId, ...rest } = origin;
  return {
    ...rest,
    ...(userId !== undefined ? { user_id: userId } : {}),
    ...(chatId !== undefined ? { chat_id: chatId } : {}),
  };
}

/** A capability grant, in the event stream's spelling. */
export type EventGrant = Omit<CapabilityGrant, 'expiresWith'> & { expires_with: RunId };

export function eventGrant({ expiresWith, ...rest }: CapabilityGrant): EventGrant {
  return { ...rest, expires_with: expiresWith };
}

export type RunEventBody =
  | {
      type: 'run.started';
      goal: string;
      resumed: boolean;
      /** Set on a delegated run: the run whose agents/delegate call started it. */
      parent_run_id?: RunId;
      /**
       * Set on a swarm worker's run: the OTel span (16 hex) of the leader's delegation it runs
       * under, from the task's `traceparent`; its telemetry span is that span's child.
       */
      parent_span_id?: string;
      /** Set when a channel or a schedule started the run. */
      origin?: EventOrigin;
    }
  | { type: 'state.changed'; from: RunState; to: RunState; transition: RunTransition }
  | { type: 'model.delta'; kind: 'text' | 'reasoning'; text: string }
  | {
      type: 'model.finished';
      /** The model that served, after any fallback. */
      model: string;
      stop_reason: string;
      usage: EventUsage;
      cost_usd: number;
      /** Why the models tried before it failed, in order (empty without fallback). */
      fallbacks?: string[];
    }
  | {
      /** What was left out of a model call to fit the model's context (fitRequestToContext). */
      type: 'context.fitted';
      context_tokens: number;
      tools_left_out: string[];
      messages_left_out: number;
      /** The same in one sentence, for a person. */
      note: string;
    }
  | { type: 'tool.requested'; call: ToolCall; read_only: boolean }
  | {
      type: 'policy.decided';
      call_id: string;
      decision: 'allow' | 'deny' | 'ask';
      reason?: string;
      rule?: string;
      grant?: EventGrant;
    }
  | {
      /** A world model's expectation of a call with side effects, asked before the policy acts. */
      type: 'world_model.predicted';
      call_id: string;
      world_model: string;
      risk: 'low' | 'medium' | 'high' | 'unknown';
      summary: string;
      cost?: string;
      /** Why there is no prediction. */
      unavailable?: string;
    }
  | { type: 'approval.requested'; approval_id: string; call: ToolCall; reason?: string }
  | { type: 'approval.resolved'; approval_id: string; approved: boolean; by: string }
  | {
      /** A tool's MCP server asks the user to fill a form mid-call (elicitation). */
      type: 'input.requested';
      input_id: string;
      call_id?: string;
      /** The server that asks. */
      source: string;
      /** The form's field names (the message and labels are in the surfaces' pending list). */
      fields: string[];
    }
  | {
      type: 'input.resolved';
      input_id: string;
      call_id?: string;
      action: 'accept' | 'decline' | 'cancel';
      /** Who answered; 'timeout' or 'cancelled' when nobody did. */
      by: string;
      /** The names of the fields answered (accept only): never their values. */
      fields?: string[];
    }
  | { type: 'tool.started'; call_id: string; name: string }
  | {
      type: 'tool.finished';
      call_id: string;
      name: string;
      is_error: boolean;
      /** ok, error (the tool failed), denied (policy or approval refused; it never ran). */
      status: 'ok' | 'error' | 'denied';
      duration_ms: number;
      /** What the tool returned, screened: what the model and every surface see. */
      output: string;
      /** Set when the result came from an earlier process (resume), not a new execution. */
      replayed?: boolean;
      /** The CKP code of a refusal or failure the protocol names (-32010 ... -32014). */
      code?: number;
    }
  | {
      type: 'run.finished';
      outcome: RunOutcome;
      reason: string;
      /** The CKP code of the failure that ended the run, when the protocol names it (-32021). */
      code?: number;
      usage: EventUsage;
      cost_usd: number;
      turns: number;
    };

/**
 * Facts of a run that only its store records: the run's row, the message tree, steps, the
 * calls a step asked for and the run's spending so far. The loop states them like its events,
 * in the same order, and the store writes them; they are not published (the event stream's
 * wire, its `seq` numbers and the audit stay as they were).
 */
export type RunRecordBody =
  | {
      type: 'run.created';
      task_id: TaskId;
      trace_id: TraceId;
      goal: string;
      /** What the run was started with (guards, origin, a delegation's brief): kept with it. */
      options: Record<string, unknown>;
      parent_run_id?: RunId;
      /** Set when the run starts a new session: that session's title. */
      session_title?: string;
      at: string;
    }
  | {
      type: 'message.added';
      message_id: MessageId;
      parent_id: MessageId | null;
      message: Message;
      /** The run's first message (its user turn). */
      first: boolean;
    }
  | { type: 'step.started'; step_id: StepId; kind: StepKind }
  | { type: 'step.finished'; step_id: StepId; spent?: { usage: Usage; cost_usd: number } }
  | {
      /** The calls a step asked for, in order, before any of them is decided or run. */
      type: 'step.calls';
      step_id: StepId;
      calls: Array<ToolCall & { read_only: boolean }>;
    }
  /** A side effect that was started but never recorded before its process died. */
  | { type: 'tool.interrupted'; call_id: string; output: string }
  /** The run's spending so far, on record while it goes on (a sub-agent's budget is the rest). */
  | { type: 'run.spent'; turns: number; usage: Usage; cost_usd: number };

/** Everything a run states: its published events and the facts only its store records. */
export type RunFactBody = RunEventBody | RunRecordBody;

const RECORD_ONLY: ReadonlySet<RunFactBody['type']> = new Set<RunRecordBody['type']>([
  'run.created',
  'message.added',
  'step.started',
  'step.finished',
  'step.calls',
  'tool.interrupted',
  'run.spent',
]);

/** Whether a fact goes out on the event stream (to the audit, telemetry and every surface). */
export function isPublished(fact: RunFactBody): fact is RunEventBody {
  return !RECORD_ONLY.has(fact.type);
}

export type RunEvent = RunEventBody & {
  trace_id: TraceId;
  task_id: TaskId;
  /** Every event names its session and run: no consumer has to look either up. */
  session_id: SessionId;
  run_id: RunId;
  step_id?: StepId;
  /** 1, 2, 3 ... per run. */
  seq: number;
  at: string;
};

export type RunEventType = RunEvent['type'];

/**
 * Fan-out of one run's events: any number of readers, each with its own buffer, each seeing
 * every event from the moment it subscribed; ends when the run ends.
 */
export class RunEventStream {
  private readonly readers = new Set<{ queue: RunEvent[]; wake?: () => void }>();
  private readonly history: RunEvent[] = [];
  private closed = false;

  emit(event: RunEvent): void {
    this.history.push(event);
    for (const reader of this.readers) {
      reader.queue.push(event);
      reader.wake?.();
    }
  }

  close(): void {
    this.closed = true;
    for (const reader of this.readers) reader.wake?.();
  }

  /** Every event of the run, including those emitted before this call. */
  async *all(): AsyncGenerator<RunEvent> {
    const reader: { queue: RunEvent[]; wake?: () => void } = { queue: [...this.history] };
    this.readers.add(reader);
    try {
      while (true) {
        const next = reader.queue.shift();
        if (next) {
          yield next;
          continue;
        }
        if (this.closed) return;
        await new Promise<void>((resolve) => {
          reader.wake = resolve;
        });
        reader.wake = undefined;
      }
    } finally {
      this.readers.delete(reader);
    }
  }

  get events(): readonly RunEvent[] {
    return this.history;
  }
}
