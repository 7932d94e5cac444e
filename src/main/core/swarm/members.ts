/**
 * An agent as a swarm member. As a worker it runs each task as one run of its own runtime, under
 * its own manifest's policy and guards (a task's budget only narrows them): no agent accepts work
 * outside its own policy. As a leader it judges the workers' answers with a run of its own.
 */

import type { Agent } from '../agent/index.js';
import { clampBudget } from '../agent/index.js';
import { parentSpanOf } from '../telemetry/index.js';
import type { TraceId } from '../terms.js';
import type { Leader } from './aggregate.js';
import type { TaskHandler } from './types.js';

const REDELIVERED =
  'Note: an earlier attempt at this task was interrupted. Check whether anything it did already took effect before doing it again.';

/** Runs swarm tasks on an agent: one run each, in a session of its own. */
export function agentWorker(agent: Agent): TaskHandler {
  return async (task, { signal, attempt, traceparent }) => {
    const text = [
      task.description,
      task.input === undefined ? '' : `Input:\n${JSON.stringify(task.input, null, 2)}`,
      attempt > 1 ? REDELIVERED : '',
    ]
      .filter(Boolean)
      .join('\n\n');
    const guards = clampBudget(agent.guards, {
      tokens: task.budget?.tokens === undefined ? undefined : Math.max(1, task.budget.tokens),
      cost_usd: task.budget?.costUsd,
      time_ms: task.budget?.timeMs,
    });
    // The run's span is the leader's delegation span's child when the header names one in the
    // task's trace; without it the run joins the trace by its id alone.
    const parentSpanId = task.traceId ? parentSpanOf(traceparent, task.traceId) : undefined;
    const handle = agent.runtime.start({
      text,
      signal,
      guards,
      ...(task.traceId ? { traceId: task.traceId as TraceId } : {}),
      ...(parentSpanId ? { parentSpanId } : {}),
      record: { swarm: { name: task.swarm, task: task.id, operation: task.operation, attempt } },
      // Work another agent sent: nobody here approves on its behalf (the origin guard).
      origin: { channel: `swarm:${task.swarm}`, type: 'swarm', message: task.id },
    });
    const started = Date.now();
    const result = await handle.done;
    const reply = (result.reply?.content ?? [])
      .flatMap((block) => (block.type === 'text' ? [block.text] : []))
      .join('');
    return {
      status: result.outcome === 'completed' ? 'completed' : 'failed',
      result: result.outcome === 'completed' ? reply : `${result.outcome}: ${result.reason}`,
      tokens: result.usage.inputTokens + result.usage.outputTokens,
      costUsd: result.costUsd,
      durationMs: Date.now() - started,
    };
  };
}

/** The leader's judgement, as runs of the leader agent (one model call each, no tools needed). */
export function agentLeader(agent: Agent): Leader {
  const ask = async (text: string): Promise<string> => {
    const result = await agent.runtime.start({ text, guards: { maxTurns: 2 } }).done;
    return (result.reply?.content ?? [])
      .flatMap((block) => (block.type === 'text' ? [block.text] : []))
      .join('')
      .trim();
  };
  const listed = (candidates: readonly string[]) =>
    candidates.map((answer, i) => `Answer ${i + 1}:\n${answer}`).join('\n\n');
  return {
    pick: async (goal, candidates) => {
      const reply = await ask(
        `Task: ${goal}\n\n${listed(candidates)}\n\nWhich answer is best? Reply with its number only.`,
      );
      const number = /\d+/.exec(reply);
      return number ? Number.parseInt(number[0], 10) - 1 : 0;
    },
    decide: (goal, candidates) =>
      ask(
        `Task: ${goal}\n\nYour workers answered:\n\n${listed(candidates)}\n\nWrite the final answer.`,
      ),
  };
}
