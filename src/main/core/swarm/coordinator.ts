/**
 * A swarm operation, as the leader runs it: the topology decides which tasks go out (the goal to
 * every worker slot, or through the stages of a pipeline), `max_parallel` bounds what is in
 * flight, each task is retried `retry_per_agent` times behind a circuit breaker and then
 * dead-lettered, and the swarm-wide token, cost and time limits hold across every member: past
 * one, the operation is stopped on every member and nothing more is sent.
 */
import type { SwarmSpec } from '../ckp/index.js';
import { newId } from '../terms.js';
import { type Aggregate, aggregate, type Leader, type Strategy } from './aggregate.js';
import { CircuitBreaker } from './breaker.js';
import { type SwarmBackend, SwarmError, type SwarmReport, type SwarmTask } from './types.js';

export type Topology = SwarmSpec['topology'];

export interface SwarmSettings {
  name: string;
  topology: Topology;
  /** Worker slots: the `count` of every agent whose role is not leader. */
  workers: number;
  maxParallel: number;
  strategy: Strategy;
  timeoutMs: number;
  retries: number;
  deadLetter: boolean;
  breaker?: { threshold: number; resetMs: number };
  limits: { tokens?: number; costUsd?: number; durationMs?: number };
}

export function swarmSettings(name: string, spec: SwarmSpec): SwarmSettings {
  const workers = spec.agents
    .filter((agent) => agent.role !== 'leader')
    .reduce((sum, agent) => sum + (agent.count ?? 1), 0);
  const breaker = spec.failure?.circuit_breaker;
  return {
    name,
    topology: spec.topology,
    workers: Math.max(1, workers),
    maxParallel: spec.coordination.concurrency.max_parallel ?? 4,
    strategy: spec.aggregation.strategy,
    timeoutMs: spec.aggregation.timeout_ms ?? 600_000,
    retries: spec.failure?.retry_per_agent ?? 0,
    deadLetter: spec.failure?.dead_letter?.enabled ?? true,
    breaker: breaker
      ? { threshold: breaker.failure_threshold ?? 3, resetMs: breaker.reset_timeout_ms ?? 60_000 }
      : undefined,
    limits: {
      tokens: spec.resource_limits?.max_total_tokens,
      costUsd: spec.resource_limits?.max_total_cost_usd,
      durationMs: spec.resource_limits?.max_duration_ms,
    },
  };
}

export type SwarmOutcome = 'completed' | 'failed' | 'limit' | 'deadline';

export interface SwarmResult extends Aggregate {
  operation: string;
  outcome: SwarmOutcome;
  reason?: string;
  reports: SwarmReport[];
  tokens: number;
  costUsd: number;
  durationMs: number;
}

export interface RunRequest {
  goal: string;
  /** Explicit tasks (leader-worker, broadcast); default: the goal once per worker slot. */
  tasks?: string[];
  /** The leader's trace: every member's run joins it. */
  traceId?: string;
  /** Told of each report as it arrives. */
  onReport?: (report: SwarmReport) => void;
}

export class SwarmCoordinator {
  private readonly breaker?: CircuitBreaker;

  constructor(
    readonly settings: SwarmSettings,
    private readonly backend: SwarmBackend,
    private readonly leader?: Leader,
  ) {
    if (settings.breaker)
      this.breaker = new CircuitBreaker(settings.breaker.threshold, settings.breaker.resetMs);
  }

  async run(request: RunRequest): Promise<SwarmResult> {
    const { settings } = this;
    if (settings.topology === 'peer-to-peer' || settings.topology === 'hierarchical') {
      throw new SwarmError(
        'unsupported',
        `the ${settings.topology} topology is not supported yet (use leader-worker, broadcast or pipeline)`,
      );
    }
    const operation = newId<string>('swop');
    // One trace for the whole operation: a leader with none (`pincer swarm run`) starts it here,
    // so every member's run (and its telemetry) joins the same trace.
    const traceId = request.traceId ?? newId<string>('trc');
    const started = Date.now();
    const budget = settings.limits.durationMs
      ? Math.min(settings.timeoutMs, settings.limits.durationMs)
      : settings.timeoutMs;
    const deadline = started + budget;
    const spent = { tokens: 0, costUsd: 0 };
    // Set once, by whichever limit, deadline or breaker ends the operation first.
    const ended: { stop?: { outcome: SwarmOutcome; reason: string } } = {};
    // Read through a function: TypeScript would keep the narrowing of an earlier check.
    const stoppedBy = (): SwarmOutcome | undefined => ended.stop?.outcome;
    const halt = async (outcome: SwarmOutcome, reason: string) => {
      if (ended.stop) return;
      ended.stop = { outcome, reason };
      await this.backend.stopOperation(settings.name, operation).catch(() => {});
    };
    const overLimit = (): string | undefined => {
      const { tokens, costUsd } = settings.limits;
      if (tokens !== undefined && spent.tokens >= tokens)
        return `the swarm used ${spent.tokens} tokens (limit ${tokens})`;
      if (costUsd !== undefined && spent.costUsd >= costUsd)
        return `the swarm spent $${spent.costUsd.toFixed(4)} (limit $${costUsd})`;
      return undefined;
    };
    const timer = setTimeout(
      () => void halt('deadline', `the swarm took longer than ${budget} ms`),
      budget,
    );

    const send = async (description: string): Promise<SwarmReport> => {
      let last: SwarmReport | undefined;
      for (let attempt = 0; attempt <= settings.retries; attempt++) {
        if (ended.stop) break;
        if (this.breaker && !this.breaker.allows()) {
          await halt('failed', 'the circuit breaker is open: too many tasks failed in a row');
          break;
        }
        const task: SwarmTask = {
          id: newId<string>('swt'),
          swarm: settings.name,
          operation,
          description,
          traceId,
          budget: {
            ...(settings.limits.tokens !== undefined
              ? { tokens: settings.limits.tokens - spent.tokens }
              : {}),
            ...(settings.limits.costUsd !== undefined
              ? { costUsd: settings.limits.costUsd - spent.costUsd }
              : {}),
            timeMs: Math.max(1, deadline - Date.now()),
          },
        };
        try {
          last = await this.backend.delegate(task, Math.max(1, deadline - Date.now()));
        } catch (error) {
          if (!(error instanceof SwarmError) || error.code !== 'deadline') throw error;
          last = undefined;
          this.breaker?.failed();
          if (settings.deadLetter) await this.backend.deadLetter(task, error.message);
          await halt('deadline', error.message);
          break;
        }
        spent.tokens += last.tokens;
        spent.costUsd += last.costUsd;
        request.onReport?.(last);
        const limit = overLimit();
        if (limit) await halt('limit', limit);
        if (last.status === 'completed') {
          this.breaker?.succeeded();
          return last;
        }
        this.breaker?.failed();
        // A task the deadline or the breaker cut off is work left undone: a dead letter. One a
        // swarm limit stopped was stopped on purpose.
        if (attempt === settings.retries && settings.deadLetter && stoppedBy() !== 'limit')
          await this.backend.deadLetter(task, `failed after ${attempt + 1} tries: ${last.result}`);
      }
      return (
        last ?? {
          taskId: '',
          status: 'failed',
          result: ended.stop?.reason ?? 'not sent',
          worker: '',
          tokens: 0,
          costUsd: 0,
          durationMs: 0,
          attempt: 0,
        }
      );
    };

    let reports: SwarmReport[];
    try {
      if (settings.topology === 'pipeline') {
        reports = [];
        let input = '';
        for (let stage = 0; stage < settings.workers && !ended.stop; stage++) {
          const report = await send(
            stage === 0
              ? request.goal
              : `${request.goal}\n\nThe previous stage produced:\n${input}`,
          );
          reports.push(report);
          if (report.status !== 'completed') break;
          input = report.result;
        }
      } else {
        const descriptions =
          request.tasks ?? Array.from({ length: settings.workers }, () => request.goal);
        reports = await bounded(descriptions, settings.maxParallel, (d) =>
          ended.stop ? Promise.resolve(undefined) : send(d),
        );
      }
    } finally {
      clearTimeout(timer);
    }
    const completed = reports.filter((report) => report.status === 'completed');
    const strategy = settings.topology === 'pipeline' ? 'chain' : settings.strategy;
    const combined = completed.length
      ? await aggregate(strategy, request.goal, reports, this.leader)
      : { answer: '' };
    const { stop } = ended;
    return {
      ...combined,
      operation,
      outcome: stop?.outcome ?? (completed.length ? 'completed' : 'failed'),
      ...(stop ? { reason: stop.reason } : completed.length ? {} : { reason: 'no task completed' }),
      reports,
      tokens: spent.tokens,
      costUsd: spent.costUsd,
      durationMs: Date.now() - started,
    };
  }
}

/** Runs `work` over `items` with at most `limit` in flight; results in item order, gaps dropped. */
async function bounded<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R | undefined>,
): Promise<R[]> {
  const results: Array<R | undefined> = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const at = next++;
      results[at] = await work(items[at] as T);
    }
  });
  await Promise.all(lanes);
  return results.filter((result): result is R => result !== undefined);
}
