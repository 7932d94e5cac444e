/**
 * The swarm coordinator over the in-process backend: topologies, retries, dead letters, the
 * circuit breaker and redelivery, with members whose work is a plain function.
 */
import { expect, it } from 'vitest';
import {
  InProcessBackend,
  SwarmCoordinator,
  SwarmError,
  SwarmService,
  type SwarmSettings,
  type TaskHandler,
} from '../../../src/main/core/swarm/index.js';

const settings = (overrides: Partial<SwarmSettings> = {}): SwarmSettings => ({
  name: 'team',
  topology: 'leader-worker',
  workers: 3,
  maxParallel: 3,
  strategy: 'majority-vote',
  timeoutMs: 30_000,
  retries: 0,
  deadLetter: true,
  limits: {},
  ...overrides,
});

const answering =
  (answer: (description: string) => string): TaskHandler =>
  async (task) => ({
    status: 'completed',
    result: answer(task.description),
    tokens: 10,
    costUsd: 0,
    durationMs: 0,
  });

it('a pipeline passes each stage its predecessor output, in order', async () => {
  const backend = new InProcessBackend();
  let stage = 0;
  await backend.serve(
    { id: 'a', swarm: 'team', identity: 'stage', role: 'worker' },
    answering((description) => `${description.split('\n').at(-1)}>${++stage}`),
  );
  const result = await new SwarmCoordinator(settings({ topology: 'pipeline' }), backend).run({
    goal: 'start',
  });
  expect(result.outcome).toBe('completed');
  expect(result.answer).toBe('start>1>2>3');
  await backend.close();
});

it("every task of one operation carries one trace id: the leader's, or one started for it", async () => {
  const backend = new InProcessBackend();
  const traces: (string | undefined)[] = [];
  await backend.serve({ id: 'a', swarm: 'team', identity: 'w', role: 'worker' }, async (task) => {
    traces.push(task.traceId);
    return { status: 'completed', result: 'ok', tokens: 1, costUsd: 0, durationMs: 0 };
  });
  const coordinator = new SwarmCoordinator(
    settings({ topology: 'broadcast', workers: 2 }),
    backend,
  );
  await coordinator.run({ goal: 'g', traceId: 'trc_leader' });
  expect(traces).toEqual(['trc_leader', 'trc_leader']);
  traces.length = 0;
  await coordinator.run({ goal: 'g' });
  expect(traces).toHaveLength(2);
  expect(traces[0]).toMatch(/^trc/);
  expect(traces[1]).toBe(traces[0]);
  await backend.close();
});

it('a failing task is retried, then dead-lettered; the breaker opens after repeated failures', async () => {
  const backend = new InProcessBackend();
  let calls = 0;
  await backend.serve({ id: 'a', swarm: 'team', identity: 'w', role: 'worker' }, async () => {
    calls++;
    return { status: 'failed', result: 'no luck', tokens: 1, costUsd: 0, durationMs: 0 };
  });
  const coordinator = new SwarmCoordinator(
    settings({
      workers: 2,
      maxParallel: 1,
      retries: 1,
      breaker: { threshold: 3, resetMs: 60_000 },
    }),
    backend,
  );
  const result = await coordinator.run({ goal: 'try' });
  // Task 1: two tries, dead-lettered. Task 2: the third failure opens the breaker.
  expect(calls).toBe(3);
  expect(result.outcome).toBe('failed');
  expect(result.reason).toMatch(/circuit breaker is open/);
  const letters = await backend.deadLetters('team');
  expect(letters).toHaveLength(1);
  expect(letters[0]?.reason).toMatch(/failed after 2 tries: no luck/);
  await backend.close();
});

it('a member that crashes mid-task has the task delivered again, and it finishes once', async () => {
  const backend = new InProcessBackend({ maxDeliveries: 3 });
  const seen: number[] = [];
  await backend.serve({ id: 'a', swarm: 'team', identity: 'w', role: 'worker' }, async (_, c) => {
    seen.push(c.attempt);
    if (c.attempt === 1) throw new Error('the worker died');
    return { status: 'completed', result: 'done', tokens: 1, costUsd: 0, durationMs: 0 };
  });
  const result = await new SwarmCoordinator(settings({ workers: 1 }), backend).run({ goal: 'x' });
  expect(seen).toEqual([1, 2]);
  expect(result.reports).toEqual([expect.objectContaining({ result: 'done', attempt: 2 })]);
  await backend.close();
});

it('topologies without an implementation say so', async () => {
  const coordinator = new SwarmCoordinator(
    settings({ topology: 'hierarchical' }),
    new InProcessBackend(),
  );
  await expect(coordinator.run({ goal: 'x' })).rejects.toThrow(SwarmError);
  await expect(coordinator.run({ goal: 'x' })).rejects.toThrow(/hierarchical topology/);
});

it('a task no member takes before the deadline ends the operation with a dead letter', async () => {
  const backend = new InProcessBackend();
  const result = await new SwarmCoordinator(settings({ workers: 1, timeoutMs: 200 }), backend).run({
    goal: 'nobody home',
  });
  expect(result.outcome).toBe('deadline');
  expect(await backend.deadLetters('team')).toHaveLength(1);
});

it('the claw.swarm.* service acknowledges a delegation, then keeps its report; discover lists members', async () => {
  const backend = new InProcessBackend();
  await backend.serve(
    { id: 'a', swarm: 'team', identity: 'analyst', role: 'worker' },
    answering((description) => description.toUpperCase()),
  );
  const service = new SwarmService(backend);
  const reported = new Promise((resolve) => service.onReport(resolve));
  expect(
    service.delegate({
      task_id: 'task-1',
      task: { description: 'shout' },
      context: { request_id: 'req-1', swarm: 'team' },
    }),
  ).toEqual({ acknowledged: true });
  expect(await reported).toMatchObject({ taskId: 'task-1', status: 'completed', result: 'SHOUT' });
  expect(service.reportOf('task-1')?.worker).toBe('a');
  expect(await service.discover({ swarm: 'team' })).toEqual({
    peers: [{ identity: 'analyst', uri: 'claw://local/identity/analyst', status: 'ready' }],
  });
  await backend.close();
});
