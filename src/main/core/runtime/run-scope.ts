/**
 * One run's working state (its state machine, history, spending, current step) and the one way
 * anything it does leaves it: `emit`. Each fact goes to the run's subscribers in order: the
 * store recorder first (what is on disk is at least what anyone has seen), then the publisher,
 * which numbers, redacts and fans the published ones out to the run's stream and the runtime's
 * listener (audit, telemetry, surfaces).
 */
import type { Message, StopReason, ToolCall, Usage } from '../../../shared/messages.js';
import { type MessageId, newId, type StepId, type StepKind } from '../terms.js';
import { isPublished, type RunEvent, type RunEventStream, type RunFactBody } from './events.js';
import { callSignature, type Guards } from './guards.js';
import type { HistoryEntry } from './hooks.js';
import { advance, type RunState, type RunTransition } from './state.js';
import { RunStop } from './stops.js';
import type { RunRow } from './store.js';
import type { RuntimeDeps } from './types.js';

/** A subscriber of a run's facts. */
export type RunSubscriber = (fact: RunFactBody) => void;

export class RunScope {
  state: RunState;
  stepId: StepId | undefined;
  usage: Usage;
  costUsd: number;
  turns: number;
  history: HistoryEntry[] = [];
  lastMessageId: MessageId | null;
  /** The model's last message (a partial one when the run was cut short). */
  reply: Message | undefined;
  /** What the last model call spent, recorded with its step. */
  lastSpend: { usage: Usage; costUsd: number } | undefined;
  /** Why the last model call stopped: a reply cut off at `max_tokens` runs none of its calls. */
  lastStop: StopReason | undefined;
  private readonly seen = new Map<string, number>();
  private seq = 0;
  private readonly subscribers: readonly RunSubscriber[];

  constructor(
    readonly deps: RuntimeDeps,
    readonly run: RunRow,
    readonly events: RunEventStream,
    readonly controller: AbortController,
    readonly guards: Guards,
    recorder: RunSubscriber,
  ) {
    this.state = run.state;
    this.usage = { ...run.usage };
    this.costUsd = run.costUsd;
    this.turns = run.turns;
    this.lastMessageId = run.lastMessageId;
    this.subscribers = [recorder, (fact) => this.publish(fact)];
  }

  emit(fact: RunFactBody): void {
    for (const subscriber of this.subscribers) subscriber(fact);
  }

  /** A published fact as the event every surface reads: numbered, tied to its ids, redacted. */
  private publish(fact: RunFactBody): void {
    if (!isPublished(fact)) return;
    const event = {
      ...fact,
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

  go(transition: RunTransition): void {
    const from = this.state;
    this.state = advance(from, transition);
    this.emit({ type: 'state.changed', from, to: this.state, transition });
  }

  append(message: Message, parent: MessageId | null, first: boolean): void {
    const id = newId<MessageId>('msg');
    this.emit({ type: 'message.added', message_id: id, parent_id: parent, message, first });
    this.history.push({ id, message });
    this.lastMessageId = id;
  }

  startStep(kind: StepKind): StepId {
    const id = newId<StepId>('stp');
    this.emit({ type: 'step.started', step_id: id, kind });
    this.stepId = id;
    return id;
  }

  endStep(spent?: { usage: Usage; costUsd: number }): void {
    this.emit({
      type: 'step.finished',
      step_id: this.stepId as StepId,
      ...(spent ? { spent: { usage: spent.usage, cost_usd: spent.costUsd } } : {}),
    });
  }

  /** Counts a call; the same call made too often stops the run. */
  remember(call: ToolCall): void {
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
}
