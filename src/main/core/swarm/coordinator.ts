/**
 * A swarm operation, as the leader runs it: the topology decides which tasks go out (the goal to
 * every worker slot; through the stages of a pipeline; in rounds where peers read each other's
 * answers; or to each sub-leader, who runs a leader-worker operation of its own over its
 * workers, see hierarchy.ts), `max_parallel` bounds what is in flight, each task is retried
 * `retry_per_agent` times behind a circuit breaker and then dead-lettered, and the swarm-wide
 * token, cost and time limits hold across every member: past one, the operation is stopped on
 * every member and nothing more is sent.
 */
import { type SwarmSpec, type SwarmTree, swarmTree } from '../ckp/index.js';
import {
  delegationSpanId,
  operationSpanId,
  parentSpanOf,
  type SpanOpener,
  spanTraceparent,
} from '../telemetry/index.js';
import { newId } from '../terms.js';
import { type Aggregate, type AggregationStrategy, aggregate, type Leader } from './aggregate.js';
import { CircuitBreaker } from './breaker.js';
import { DEFAULT_ROUNDS, revisionPrompt } from './peers.js';
import { branchQueues } from './queues.js';
import { type SwarmBackend, SwarmError, type SwarmReport, type SwarmTask } from './types.js';

export type Topology = SwarmSpec['topology'];

export interface SwarmSettings {
  name: string;
  topology: Topology;
  /** Worker slots: the `count` of every agent whose role is not leader. */
  workers: number;
  maxParallel: number;
  strategy: AggregationStrategy;
  timeoutMs: number;
  retries: number;
  deadLetter: boolean;
  breaker?: { threshold: number; resetMs: number };
  limits: { tokens?: number; costUsd?: number; durationMs?: number };
  /** peer-to-peer: rounds of answers (x-pincer.rounds; default 2). */
  rounds?: number;
  /** hierarchical: the root, its sub-leaders and their workers. */
  tree?: SwarmTree;
}

export function swarmSettings(name: string, spec: SwarmSpec): SwarmSettings {
  let tree: SwarmTree | undefined;
  if (spec.topology === 'hierarchical') {
    const built = swarmTree(spec.agents, spec['x-pincer']?.reports_to);
    if (!built.tree) {
      throw new SwarmError(
        'unsupported',
        `the agents of swarm ${name} do not form a tree: ${built.problems.map((p) => p.message).join('; ')}`,
      );
    }
    tree = built.tree;
  }
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
    ...(spec.topology === 'peer-to-peer'
      ? { rounds: spec['x-pincer']?.rounds ?? DEFAULT_ROUNDS }
      : {}),
    ...(tree ? { tree } : {}),
  };
}

/** `stopped`: the task this operation served (a sub-leader's) was stopped from above. */
export type SwarmOutcome = 'completed' | 'failed' | 'limit' | 'deadline' | 'stopped';

export interface SwarmResult extends Aggregate {
  operation: string;
  outcome: SwarmOutcome;
  reason?: string;
  reports: SwarmReport[];
  tokens: number;
  costUsd: number;
  durationMs: number;
  /** peer-to-peer: the rounds that ran; the answer is the last one's. */
  rounds?: number;
}

export interface RunRequest {
  goal: string;
  /**
   * Explicit tasks: leader-worker and broadcast send each once (default: the goal once per worker
   * slot); hierarchical gives sub-leader n task n (default: the goal to each); pipeline and
   * peer-to-peer start from the goal only.
   */
  tasks?: string[];
  /** The leader's trace: every member's run joins it. */
  traceId?: string;
  /**
   * The span this operation runs under (the leader's run's, or the delegation a sub-leader
   * serves), as a W3C traceparent in `traceId`'s trace; without it the operation span is a root.
   */
  traceparent?: string;
  /** Told of each report as it arrives. */
  onReport?: (report: SwarmReport) => void;
  /** Narrows the swarm's limits for this operation: a sub-leader's branch spends its task's. */
  budget?: SwarmTask['budget'];
  /** Aborting it stops the operation on every member: the task it serves was stopped. */
  signal?: AbortSignal;
}

export class SwarmCoordinator {
  private readonly breaker?: CircuitBreaker;

  constructor(
    readonly settings: SwarmSettings,
    private readonly backend: SwarmBackend,
    private readonly leader?: Leader,
    /** The leader's telemetry: the operation and each task sent become spans of its trace. */
    private readonly tracing?: SpanOpener,
  ) {
    if (settings.breaker)
      this.breaker = new CircuitBreaker(settings.breaker.threshold, settings.breaker.resetMs);
  }

  async run(request: RunRequest): Promise<SwarmResult> {
    const { settings } = this;
    const branches = settings.tree?.branches ?? [];
    if (settings.topology === 'hierarchical') {
      if (!branches.length)
        throw new SwarmError('unsupported', `the hierarchical swarm ${settings.name} has no tree`);
      if (request.tasks && request.tasks.length !== branches.length) {
        throw new SwarmError(
          'bad_task',
          `a hierarchical swarm takes one task per sub-leader (${branches.length}), got ${request.tasks.length}`,
        );
      }
    }
    const limits = narrowed(settings.limits, request.budget);
    const operation = newId<string>('swop');
    // One trace for the whole operation: a leader with none (`pincer swarm run`) starts it here,
    // so every member's run (and its telemetry) joins the same trace.
    const traceId = request.traceId ?? newId<string>('trc');
    // Span ids derive from the operation and task ids (ids.ts): a worker's run names its parent
    // from the task's traceparent, whether or not this process exports the span.
    const operationSpan = operationSpanId(operation);
    const above = parentSpanOf(request.traceparent, traceId);
    const traced = this.tracing?.span({
      name: `swarm.operation ${settings.name}`,
      traceId,
      spanId: operationSpan,
      ...(above ? { parentSpanId: above } : {}),
      attributes: {
        'pincer.swarm.name': settings.name,
        'pincer.swarm.operation': operation,
        'pincer.swarm.topology': settings.topology,
      },
    });
    const started = Date.now();
    const budget = limits.durationMs
      ? Math.min(settings.timeoutMs, limits.durationMs)
      : settings.timeoutMs;
    const deadline = started + budget;
    const spent = { tokens: 0, costUsd: 0 };
    // Set once, by whichever limit, deadline or breaker ends the operation first.
    const ended: { stop?: { outcome: SwarmOutcome; reason: string } } = {};
    // Read through a function: TypeScript would keep the narrowing of an earlier check.
    const stoppedBy = (): SwarmOutcome | undefined => ended.stop?.outcome;
    // Every queue this operation sent to: a stop reaches the members serving each of them.
    const queues = new Set<string>();
    const halt = async (outcome: SwarmOutcome, reason: string) => {
      if (ended.stop) return;
      ended.stop = { outcome, reason };
      for (const queue of queues)
        await this.backend.stopOperation(queue, operation).catch(() => {});
    };
    const overLimit = (): string | undefined => {
      const { tokens, costUsd } = limits;
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

    const stopped = () => void halt('stopped', 'the task this operation serves was stopped');
    if (request.signal?.aborted) stopped();
    request.signal?.addEventListener('abort', stopped, { once: true });

    const send = async (description: string, queue = settings.name): Promise<SwarmReport> => {
      queues.add(queue);
      let last: SwarmReport | undefined;
      for (let attempt = 0; attempt <= settings.retries; attempt++) {
        if (ended.stop) break;
        if (this.breaker && !this.breaker.allows()) {
          await halt('failed', 'the circuit breaker is open: too many tasks failed in a row');
          break;
        }
        const task: SwarmTask = {
          id: newId<string>('swt'),
          swarm: queue,
          operation,
          description,
          traceId,
          budget: {
            ...(limits.tokens !== undefined ? { tokens: limits.tokens - spent.tokens } : {}),
            ...(limits.costUsd !== undefined ? { costUsd: limits.costUsd - spent.costUsd } : {}),
            timeMs: Math.max(1, deadline - Date.now()),
          },
        };
        const delegation = delegationSpanId(task.id);
        // No prompt text on it: the task's description is the user's or a worker's words.
        const span = this.tracing?.span({
          name: `swarm.delegate ${queue}`,
          traceId,
          spanId: delegation,
          parentSpanId: operationSpan,
          attributes: {
            'pincer.swarm.name': queue,
            'pincer.swarm.task_id': task.id,
            'pincer.swarm.operation': operation,
            'pincer.swarm.topology': settings.topology,
          },
        });
        try {
          last = await this.backend.delegate(
            task,
            Math.max(1, deadline - Date.now()),
            spanTraceparent(traceId, delegation),
          );
          span?.end(
            {
              'pincer.swarm.worker': last.worker,
              'pincer.swarm.outcome': last.status,
              'pincer.swarm.attempt': last.attempt,
            },
            last.status !== 'completed',
          );
        } catch (error) {
          const timedOut = error instanceof SwarmError && error.code === 'deadline';
          span?.end({ 'pincer.swarm.outcome': timedOut ? 'deadline' : 'error' }, true);
          if (!timedOut) throw error;
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
        // swarm limit (here or above) stopped was stopped on purpose.
        const onPurpose = stoppedBy() === 'limit' || stoppedBy() === 'stopped';
        if (attempt === settings.retries && settings.deadLetter && !onPurpose)
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
    // What is aggregated: every report, except in peer-to-peer, the last round's.
    let finalRound: SwarmReport[] | undefined;
    let rounds: number | undefined;
    try {
      if (settings.topology === 'peer-to-peer') {
        reports = [];
        const total = settings.rounds ?? DEFAULT_ROUNDS;
        let previous: SwarmReport[] = [];
        for (let round = 1; round <= total && !ended.stop; round++) {
          const prompts =
            round === 1
              ? Array.from({ length: settings.workers }, () => request.goal)
              : previous.map((own, seat) =>
                  revisionPrompt(
                    request.goal,
                    round,
                    total,
                    own.result,
                    previous.filter((_, other) => other !== seat).map((peer) => peer.result),
                  ),
                );
          finalRound = await bounded(prompts, settings.maxParallel, (prompt) =>
            ended.stop ? Promise.resolve(undefined) : send(prompt),
          );
          reports.push(...finalRound);
          rounds = round;
          previous = finalRound.filter((report) => report.status === 'completed');
          // A lone answer has no peers to read: another round could not change it.
          if (previous.length < 2) break;
        }
      } else if (settings.topology === 'hierarchical') {
        const descriptions = request.tasks ?? branches.map(() => request.goal);
        reports = await bounded(
          descriptions.map((description, branch) => ({ description, branch })),
          settings.maxParallel,
          ({ description, branch }) =>
            ended.stop
              ? Promise.resolve(undefined)
              : send(description, branchQueues(settings.name, branch).inbox),
        );
      } else if (settings.topology === 'pipeline') {
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
    } catch (error) {
      traced?.end({ 'pincer.swarm.outcome': 'error' }, true);
      throw error;
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', stopped);
    }
    const final = finalRound ?? reports;
    const completed = final.filter((report) => report.status === 'completed');
    const strategy = settings.topology === 'pipeline' ? 'chain' : settings.strategy;
    const combined = completed.length
      ? await aggregate(strategy, request.goal, final, this.leader)
      : { answer: '' };
    const { stop } = ended;
    const outcome: SwarmOutcome = stop?.outcome ?? (completed.length ? 'completed' : 'failed');
    traced?.end({ 'pincer.swarm.outcome': outcome }, outcome !== 'completed');
    return {
      ...combined,
      operation,
      outcome,
      ...(stop ? { reason: stop.reason } : completed.length ? {} : { reason: 'no task completed' }),
      reports,
      tokens: spent.tokens,
      costUsd: spent.costUsd,
      durationMs: Date.now() - started,
      ...(rounds === undefined ? {} : { rounds }),
    };
  }
}

/** The swarm's limits, each narrowed by a budget the operation was handed (never widened). */
function narrowed(
  limits: SwarmSettings['limits'],
  budget: RunRequest['budget'],
): SwarmSettings['limits'] {
  const least = (a?: number, b?: number) =>
    a === undefined ? b : b === undefined ? a : Math.min(a, b);
  return {
    tokens: least(limits.tokens, budget?.tokens),
    costUsd: least(limits.costUsd, budget?.costUsd),
    durationMs: least(limits.durationMs, budget?.timeMs),
  };
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
