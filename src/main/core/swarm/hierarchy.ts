/**
 * The middle tier of a hierarchical swarm. A sub-leader is a member like any other: it serves
 * its inbox, and each task the root sends it is a leader-worker operation of its own over its
 * workers' queue (the task as is, once per worker slot), aggregated with the swarm's strategy
 * and reported back as one answer. Its operation spends within the task's budget (the swarm's
 * remaining tokens, cost and time when the root sent it) and is stopped, on every one of its
 * workers, when the root stops the task.
 */
import type { SpanOpener } from '../telemetry/index.js';
import type { Leader } from './aggregate.js';
import { SwarmCoordinator, type SwarmSettings } from './coordinator.js';
import { branchQueues } from './queues.js';
import { type SwarmBackend, SwarmError, type TaskHandler } from './types.js';

/** Runs the root's tasks as sub-leader `branch` (its index among the manifest's sub-leaders). */
export function subLeaderWorker(
  settings: SwarmSettings,
  backend: SwarmBackend,
  branch: number,
  leader?: Leader,
  tracing?: SpanOpener,
): TaskHandler {
  const sub = settings.tree?.branches[branch];
  if (!sub)
    throw new SwarmError('unsupported', `swarm ${settings.name} has no sub-leader ${branch + 1}`);
  // One coordinator per sub-leader: its circuit breaker spans the tasks it leads.
  const coordinator = new SwarmCoordinator(
    {
      ...settings,
      name: branchQueues(settings.name, branch).workers,
      topology: 'leader-worker',
      workers: sub.workers.reduce((sum, worker) => sum + worker.count, 0),
      tree: undefined,
    },
    backend,
    leader,
    tracing,
  );
  // Its operation span hangs under the root's delegation span for the task it serves.
  return async (task, { signal, traceparent }) => {
    const result = await coordinator.run({
      goal: task.description,
      ...(task.traceId ? { traceId: task.traceId } : {}),
      ...(traceparent ? { traceparent } : {}),
      ...(task.budget ? { budget: task.budget } : {}),
      signal,
    });
    const done = result.outcome === 'completed';
    return {
      status: done ? 'completed' : 'failed',
      result: done ? result.answer : `${result.outcome}: ${result.reason ?? ''}`,
      tokens: result.tokens,
      costUsd: result.costUsd,
      durationMs: result.durationMs,
    };
  };
}

/** Where a joining member serves: its queue, its role, and its branch when it is a sub-leader. */
export interface MemberPlace {
  queue: string;
  role: string;
  branch?: number;
}

/**
 * A member's place in the swarm. Outside a hierarchy every member serves the swarm's one queue;
 * in one, the agent it joins as (an identity_ref of the manifest) decides: a sub-leader serves
 * its inbox, a worker its sub-leader's workers' queue. The root does not join: it runs.
 */
export function memberPlace(settings: SwarmSettings, as?: string): MemberPlace {
  const { tree } = settings;
  if (settings.topology !== 'hierarchical' || !tree)
    return { queue: settings.name, role: 'worker' };
  const names = tree.branches.flatMap((b) => [b.identity, ...b.workers.map((w) => w.identity)]);
  if (as === undefined || as === tree.root || !names.includes(as)) {
    throw new SwarmError(
      'unsupported',
      as === tree.root
        ? `"${as}" is the root of swarm ${settings.name}: it leads (pincer swarm run), it does not join`
        : `a member of the hierarchical swarm ${settings.name} joins as one of its agents: --as ${names.join('|')}`,
    );
  }
  const led = tree.branches.findIndex((b) => b.identity === as);
  if (led >= 0)
    return { queue: branchQueues(settings.name, led).inbox, role: 'sub-leader', branch: led };
  const under = tree.branches.findIndex((b) => b.workers.some((w) => w.identity === as));
  return { queue: branchQueues(settings.name, under).workers, role: 'worker' };
}
