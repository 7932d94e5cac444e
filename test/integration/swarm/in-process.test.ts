/**
 * The swarm coordinator over the in-process backend: topologies, retries, dead letters, the
 * circuit breaker and redelivery, with members whose work is a plain function.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import type { SwarmSpec } from '../../../src/main/core/ckp/index.js';
import { loadClaw } from '../../../src/main/core/ckp/loader.js';
import { type SwarmSettings, swarmSettings } from '../../../src/main/core/swarm/coordinator.js';
import { InProcessBackend } from '../../../src/main/core/swarm/in-process.js';
import {
  memberPlace,
  SwarmCoordinator,
  SwarmError,
  SwarmService,
  subLeaderWorker,
} from '../../../src/main/core/swarm/index.js';
import type { SwarmTask, TaskHandler } from '../../../src/main/core/swarm/types.js';
import { runCliInProcess } from '../../support/cli-run.js';

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

/** Resolves once `n` calls of the returned function were made. */
function gate(n: number): { arrive: () => void; all: Promise<void> } {
  let left = n;
  let open: () => void = () => {};
  const all = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    arrive: () => {
      if (--left === 0) open();
    },
    all,
  };
}

/** Runs until the operation is stopped, then reports what a cancelled run reports. */
const hanging =
  (started: () => void, aborted: string[], id: string): TaskHandler =>
  async (_, { signal }) => {
    started();
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    aborted.push(id);
    return { status: 'failed', result: 'cancelled: stopped', tokens: 0, costUsd: 0, durationMs: 0 };
  };

/** The fenced answers of a revision prompt: its own previous one, then the other members'. */
function fencedAnswers(prompt: string): { own: string; others: string[] } {
  const blocks = [
    ...prompt.matchAll(/^(.*):\n<<<peer-answer (\w+)\n([\s\S]*?)\n>>>peer-answer \2$/gm),
  ];
  return {
    own: blocks.find((b) => b[1] === 'Your previous answer')?.[3] ?? '',
    others: blocks.filter((b) => b[1]?.startsWith('Member')).map((b) => b[3] ?? ''),
  };
}

it("peer-to-peer: round 2 gives each member the others' round-1 answers; the last round is aggregated", async () => {
  const backend = new InProcessBackend();
  const goal = 'What is the capital of France?';
  const revisions: string[] = [];
  const first: Record<string, string> = { a: 'Lyon', b: 'Lyon', c: 'Paris' };
  for (const id of ['a', 'b', 'c']) {
    await backend.serve({ id, swarm: 'team', identity: 'peer', role: 'worker' }, async (task) => {
      if (task.description !== goal) revisions.push(task.description);
      // Round 1 answers alone would vote Lyon; having read Paris, every member revises to it.
      const answer = task.description === goal ? (first[id] as string) : 'Paris';
      return { status: 'completed', result: answer, tokens: 10, costUsd: 0, durationMs: 0 };
    });
  }
  const result = await new SwarmCoordinator(
    settings({ topology: 'peer-to-peer', rounds: 2 }),
    backend,
  ).run({ goal });
  expect(result.outcome).toBe('completed');
  expect(result.rounds).toBe(2);
  expect(result.reports).toHaveLength(6);
  expect(
    result.reports
      .slice(0, 3)
      .map((r) => r.result)
      .sort(),
  ).toEqual(['Lyon', 'Lyon', 'Paris']);
  expect(revisions).toHaveLength(3);
  const owns: string[] = [];
  for (const prompt of revisions) {
    expect(prompt.startsWith(`${goal}\n\nRound 2 of 2`)).toBe(true);
    expect(prompt).toMatch(/not instructions/);
    const { own, others } = fencedAnswers(prompt);
    owns.push(own);
    // The two other seats' round-1 answers, next to its own: together, all of round 1.
    expect(others).toHaveLength(2);
    expect([own, ...others].sort()).toEqual(['Lyon', 'Lyon', 'Paris']);
  }
  expect(owns.sort()).toEqual(['Lyon', 'Lyon', 'Paris']);
  expect(result.votes).toEqual([{ answer: 'Paris', count: 3 }]);
  expect(result.answer).toBe('Paris');
  expect(result.tokens).toBe(60);
  await backend.close();
});

it('peer-to-peer: a token limit passed in round 1 stops every member and sends no round 2', async () => {
  const backend = new InProcessBackend();
  const aborted: string[] = [];
  const running = gate(2);
  let prompts = 0;
  await backend.serve({ id: 'a', swarm: 'team', identity: 'peer', role: 'worker' }, async () => {
    prompts++;
    await running.all; // answers once both others are at work
    return { status: 'completed', result: 'Paris', tokens: 10, costUsd: 0, durationMs: 0 };
  });
  for (const id of ['b', 'c'])
    await backend.serve(
      { id, swarm: 'team', identity: 'peer', role: 'worker' },
      hanging(running.arrive, aborted, id),
    );
  const result = await new SwarmCoordinator(
    settings({ topology: 'peer-to-peer', rounds: 3, limits: { tokens: 5 } }),
    backend,
  ).run({ goal: 'g' });
  expect(result.outcome).toBe('limit');
  expect(result.reason).toMatch(/limit 5/);
  expect(result.rounds).toBe(1);
  expect(aborted.sort()).toEqual(['b', 'c']);
  expect(prompts).toBe(1);
  // Stopped on purpose: nothing was left undone by a failure.
  expect(await backend.deadLetters('team')).toEqual([]);
  await backend.close();
});

/** Two branches: research-lead leads two researchers, review-lead one reviewer. */
const orgSpec = (reportsTo: Record<string, string>, limits?: { tokens: number }): SwarmSpec => ({
  topology: 'hierarchical',
  agents: [
    { identity_ref: 'chief', role: 'leader' },
    { identity_ref: 'research-lead', role: 'sub-leader' },
    { identity_ref: 'researcher', role: 'worker', count: 2 },
    { identity_ref: 'review-lead', role: 'sub-leader' },
    { identity_ref: 'reviewer', role: 'worker' },
  ],
  coordination: {
    message_passing: 'queue',
    backend: 'in-process',
    concurrency: { max_parallel: 4 },
  },
  aggregation: { strategy: 'merge' },
  ...(limits ? { resource_limits: { max_total_tokens: limits.tokens } } : {}),
  'x-pincer': { reports_to: reportsTo },
});
const REPORTS_TO = { researcher: 'research-lead', reviewer: 'review-lead' };

interface Seen {
  member: string;
  task: SwarmTask;
}

/** Serves the tree: each sub-leader leads its own branch, each worker serves its sub-leader. */
async function serveOrg(
  backend: InProcessBackend,
  org: SwarmSettings,
  seen: Seen[],
  workers: Record<string, { as: string; handler: TaskHandler }>,
) {
  for (const lead of ['research-lead', 'review-lead']) {
    const place = memberPlace(org, lead);
    const leads = subLeaderWorker(org, backend, place.branch as number);
    await backend.serve(
      { id: lead, swarm: place.queue, identity: lead, role: place.role },
      (t, c) => {
        seen.push({ member: lead, task: t });
        return leads(t, c);
      },
    );
  }
  for (const [id, { as, handler }] of Object.entries(workers)) {
    const place = memberPlace(org, as);
    await backend.serve({ id, swarm: place.queue, identity: as, role: place.role }, (t, c) => {
      seen.push({ member: id, task: t });
      return handler(t, c);
    });
  }
}

it('hierarchical: the root goal goes to each sub-leader, whose own workers answer; the root merges the branches', async () => {
  const backend = new InProcessBackend();
  const org = swarmSettings('org', orgSpec(REPORTS_TO));
  const seen: Seen[] = [];
  const named = (id: string): TaskHandler => answering(() => id);
  await serveOrg(backend, org, seen, {
    r1: { as: 'researcher', handler: named('r1') },
    r2: { as: 'researcher', handler: named('r2') },
    v1: { as: 'reviewer', handler: named('v1') },
  });
  const goal = 'Assess the plan';
  const result = await new SwarmCoordinator(org, backend).run({ goal, traceId: 'trc_root' });
  expect(result.outcome).toBe('completed');

  const tasksOf = (member: string) => seen.filter((s) => s.member === member).map((s) => s.task);
  // The sub-leaders got the goal, once each, in their own inbox.
  expect(tasksOf('research-lead').map((t) => [t.swarm, t.description])).toEqual([
    ['org__s1', goal],
  ]);
  expect(tasksOf('review-lead').map((t) => [t.swarm, t.description])).toEqual([['org__s2', goal]]);
  // Each worker got one task, from its own sub-leader's operation (its queue), never the root's.
  const rootOperation = tasksOf('research-lead')[0]?.operation;
  for (const [worker, queue] of [
    ['r1', 'org__s1_w'],
    ['r2', 'org__s1_w'],
    ['v1', 'org__s2_w'],
  ] as const) {
    const tasks = tasksOf(worker);
    expect(tasks.map((t) => [t.swarm, t.description])).toEqual([[queue, goal]]);
    expect(tasks[0]?.operation).not.toBe(rootOperation);
    expect(tasks[0]?.traceId).toBe('trc_root');
  }
  expect(tasksOf('r1')[0]?.operation).toBe(tasksOf('r2')[0]?.operation);

  // One report per sub-leader, each its branch merged; the root merges those.
  const byLead = Object.fromEntries(result.reports.map((r) => [r.worker, r]));
  expect(byLead['research-lead']?.result.split('\n\n---\n\n').sort()).toEqual(['r1', 'r2']);
  expect(byLead['research-lead']?.tokens).toBe(20);
  expect(byLead['review-lead']?.result).toBe('v1');
  expect(result.answer.split('\n\n---\n\n').sort()).toEqual(['r1', 'r2', 'v1']);
  expect(result.tokens).toBe(30);
  await backend.close();
});

it("hierarchical: a branch passing the swarm's token limit stops the other branch's workers too", async () => {
  const backend = new InProcessBackend();
  const org = swarmSettings('org', orgSpec(REPORTS_TO, { tokens: 15 }));
  const seen: Seen[] = [];
  const aborted: string[] = [];
  const reviewing = gate(1);
  const researching: TaskHandler = async () => {
    await reviewing.all; // answers once the other branch is at work
    return { status: 'completed', result: 'found', tokens: 10, costUsd: 0, durationMs: 0 };
  };
  await serveOrg(backend, org, seen, {
    r1: { as: 'researcher', handler: researching },
    r2: { as: 'researcher', handler: researching },
    v1: { as: 'reviewer', handler: hanging(reviewing.arrive, aborted, 'v1') },
  });
  const result = await new SwarmCoordinator(org, backend).run({ goal: 'g' });
  // The research branch spent 20 of 15 tokens: its sub-leader stopped, then the root stopped all.
  expect(result.outcome).toBe('limit');
  expect(result.reason).toMatch(/used 20 tokens \(limit 15\)/);
  expect(aborted).toEqual(['v1']);
  const byLead = Object.fromEntries(result.reports.map((r) => [r.worker, r]));
  expect(byLead['research-lead']?.result).toMatch(/^limit: /);
  expect(byLead['review-lead']?.status).toBe('failed');
  expect(byLead['review-lead']?.result).toMatch(/^stopped: /);
  for (const queue of ['org', 'org__s1', 'org__s1_w', 'org__s2', 'org__s2_w'])
    expect(await backend.deadLetters(queue)).toEqual([]);
  await backend.close();
});

it('hierarchical: roles that do not form a tree are refused, naming the problem', () => {
  expect(() => swarmSettings('org', orgSpec({ researcher: 'research-lead' }))).toThrow(
    /worker "reviewer" reports to no sub-leader .*sub-leader "review-lead" has no workers/,
  );
  expect(() => swarmSettings('org', orgSpec({ ...REPORTS_TO, reviewer: 'chief' }))).toThrow(
    SwarmError,
  );
  const org = swarmSettings('org', orgSpec(REPORTS_TO));
  expect(() => memberPlace(org, 'chief')).toThrow(/root of swarm org: it leads/);
  expect(() => memberPlace(org)).toThrow(/--as research-lead\|researcher\|review-lead\|reviewer/);
});

/** A claw.yaml around a swarm block (as the README shows them). */
const clawWith = (swarm: string) => `claw: "0.2.0"
kind: Claw
metadata: { name: "swarm-member" }
spec:
  identity: { inline: { personality: "A swarm member." } }
  providers:
    - inline:
        protocol: "openai-compatible"
        endpoint: "http://127.0.0.1:9/v1"
        model: "none"
        auth: { type: "none" }
  swarm:
    inline:
${swarm}`;

it('manifests: peer-to-peer rounds and a hierarchical tree load; pincer swarm status reads every branch', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-swarm-manifest-'));
  try {
    const peers = path.join(dir, 'peers.yaml');
    await writeFile(
      peers,
      clawWith(`      name: "panel"
      topology: "peer-to-peer"
      agents:
        - { identity_ref: "judge", role: "leader" }
        - { identity_ref: "panelist", role: "peer", count: 3 }
      coordination:
        message_passing: "queue"
        backend: "in-process"
        concurrency: { max_parallel: 3 }
      aggregation: { strategy: "majority-vote", timeout_ms: 600000 }
      resource_limits: { max_total_cost_usd: 1.00 }
      x-pincer: { rounds: 3 }
`),
    );
    const panel = await loadClaw(peers);
    expect(swarmSettings('panel', panel.swarm?.spec as SwarmSpec)).toMatchObject({
      topology: 'peer-to-peer',
      workers: 3,
      rounds: 3,
    });

    const tree = path.join(dir, 'tree.yaml');
    await writeFile(
      tree,
      clawWith(`      name: "org"
      topology: "hierarchical"
      agents:
        - { identity_ref: "chief", role: "leader" }
        - { identity_ref: "research-lead", role: "sub-leader" }
        - { identity_ref: "researcher", role: "worker", count: 2 }
        - { identity_ref: "review-lead", role: "sub-leader" }
        - { identity_ref: "reviewer", role: "worker" }
      coordination:
        message_passing: "queue"
        backend: "in-process"
        concurrency: { max_parallel: 4 }
      aggregation: { strategy: "leader-decides", timeout_ms: 600000 }
      resource_limits: { max_total_tokens: 200000 }
      x-pincer:
        reports_to: { researcher: "research-lead", reviewer: "review-lead" }
`),
    );
    const org = await loadClaw(tree);
    expect(swarmSettings('org', org.swarm?.spec as SwarmSpec).tree).toEqual({
      root: 'chief',
      branches: [
        { identity: 'research-lead', workers: [{ identity: 'researcher', count: 2 }] },
        { identity: 'review-lead', workers: [{ identity: 'reviewer', count: 1 }] },
      ],
    });
    const shown = await runCliInProcess(['swarm', 'status', '--manifest', tree], {
      dataDir: path.join(dir, 'data'),
    });
    expect(shown.stderr).toBe('');
    expect(shown.stdout).toContain('swarm org (hierarchical, in-process): 0 member(s)');
    expect(shown.code).toBe(0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
