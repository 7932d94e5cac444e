/**
 * The run store as a subscriber of a run's facts: the loop states what happened and this writes
 * it, synchronously and in order, before the event is published, so what is on disk is always at
 * least what any surface has seen and a killed process resumes from it. It sees the facts before
 * redaction: the store keeps what the loop keeps (as it did when the loop wrote it by hand).
 */
import type { RunId, SessionId } from '../terms.js';
import type { EventUsage, RunFactBody } from './events.js';
import type { RunStore } from './store.js';

const usageOf = (usage: EventUsage) => ({
  inputTokens: usage.input_tokens,
  outputTokens: usage.output_tokens,
});

/** Writes one run's facts to the store. */
export function storeRecorder(
  store: RunStore,
  runId: RunId,
  sessionId: SessionId,
): (fact: RunFactBody) => void {
  return (fact) => {
    switch (fact.type) {
      case 'run.created':
        if (fact.session_title !== undefined) store.createSession(fact.session_title, sessionId);
        store.createRun({
          id: runId,
          sessionId,
          taskId: fact.task_id,
          traceId: fact.trace_id,
          goal: fact.goal,
          options: fact.options,
          parentRunId: fact.parent_run_id,
          at: fact.at,
        });
        return;
      case 'message.added':
        store.addMessage(sessionId, fact.parent_id, runId, fact.message, fact.message_id);
        store.updateRun(runId, {
          lastMessageId: fact.message_id,
          ...(fact.first ? { startMessageId: fact.message_id } : {}),
        });
        return;
      case 'state.changed':
        store.updateRun(runId, { state: fact.to });
        return;
      case 'step.started':
        store.startStep(runId, fact.kind, fact.step_id);
        return;
      case 'step.finished':
        store.endStep(
          fact.step_id,
          fact.spent && { usage: fact.spent.usage, costUsd: fact.spent.cost_usd },
        );
        return;
      case 'step.calls':
        store.requestToolCalls(
          runId,
          fact.step_id,
          fact.calls.map(({ read_only, ...call }) => ({ ...call, readOnly: read_only })),
        );
        return;
      case 'tool.started':
        store.markToolStarted(runId, fact.call_id);
        return;
      case 'tool.interrupted':
        store.finishToolCall(
          runId,
          fact.call_id,
          { content: fact.output, isError: true },
          'interrupted',
        );
        return;
      case 'tool.finished':
        // A replayed result is already on record from the process that produced it.
        if (!fact.replayed)
          store.finishToolCall(runId, fact.call_id, {
            content: fact.output,
            isError: fact.is_error,
          });
        return;
      case 'run.spent':
        store.updateRun(runId, { turns: fact.turns, usage: fact.usage, costUsd: fact.cost_usd });
        return;
      case 'run.finished':
        store.updateRun(runId, {
          outcome: fact.outcome,
          reason: fact.reason,
          turns: fact.turns,
          usage: usageOf(fact.usage),
          costUsd: fact.cost_usd,
        });
        return;
      default:
        // The other events (deltas, decisions, approvals, inputs) are the audit's and the
        // surfaces': the store has no column for them.
        return;
    }
  };
}
