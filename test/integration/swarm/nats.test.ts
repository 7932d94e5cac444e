/**
 * Swarms across processes on a real nats-server (JetStream work queue, KV discovery): three
 * worker processes, each an agent from the root with a scripted model, and a leader agent here.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agent, openAgent, openAgentRecords } from '../../../src/main/core/agent/index.js';
import { loadClaw } from '../../../src/main/core/ckp/loader.js';
import { BackendSwarm } from '../../../src/main/core/ckp-server/backend-swarm.js';
import {
  CkpHost,
  sessionFactory,
  swarmFor,
  ToolCalls,
} from '../../../src/main/core/ckp-server/index.js';
import { viaProvider } from '../../../src/main/core/models/access.js';
import { agentLeader, openSwarm, SwarmCoordinator } from '../../../src/main/core/swarm/index.js';
import type { OpenedSwarm } from '../../../src/main/core/swarm/open.js';
import { APP_DIR } from '../../support/assistant-harness.js';
import { CkpPeer } from '../../support/ckp-peer.js';
import { repoRoot, runCliInProcess } from '../../support/cli-run.js';
import { type NatsServer, natsMissing, startNats } from '../../support/nats.js';
import { ScriptedProvider } from '../../support/scripted-provider.js';
import { vaultSecrets } from '../../support/secrets.js';
import { writeSwarmManifest } from './fixtures/manifest.js';

const missing = natsMissing();
if (missing) console.warn(`skipping the NATS swarm suite: ${missing}`);

const WORKER = path.join(import.meta.dirname, 'fixtures', 'worker.ts');

interface WorkerProcess {
  id: string;
  child: ChildProcess;
  dataDir: string;
  /** Resolves on the next stdout line that starts with `prefix`. */
  line(prefix: string): Promise<string>;
}

describe.skipIf(missing)('swarm over NATS', () => {
  let nats: NatsServer;
  let root = '';
  let manifest = '';
  let leader: Agent;
  let swarm: OpenedSwarm;
  const workers: WorkerProcess[] = [];

  async function startWorker(
    id: string,
    answer: string,
    options: { swarm?: string; mode?: 'hang' | 'plain' } = {},
  ) {
    const dataDir = path.join(root, id);
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        WORKER,
        dataDir,
        manifest,
        id,
        answer,
        options.mode ?? 'hang',
        ...(options.swarm ? [options.swarm] : []),
      ],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const lines = createInterface({ input: child.stdout as NonNullable<typeof child.stdout> });
    const waiters: Array<{ prefix: string; resolve: (line: string) => void }> = [];
    lines.on('line', (text) => {
      const at = waiters.findIndex((waiter) => text.startsWith(waiter.prefix));
      if (at >= 0) waiters.splice(at, 1)[0]?.resolve(text);
    });
    const worker: WorkerProcess = {
      id,
      child,
      dataDir,
      line: (prefix) => new Promise((resolve) => waiters.push({ prefix, resolve })),
    };
    const ready = worker.line('ready');
    workers.push(worker);
    await ready;
    return worker;
  }

  beforeAll(async () => {
    nats = await startNats();
    root = await mkdtemp(path.join(os.tmpdir(), 'pincer-swarm-'));
    manifest = await writeSwarmManifest(root, { backend: 'nats', natsUrl: nats.url });
    // The leader judges best-of-n with its own (scripted) model: it always picks answer 2.
    const leaderDir = path.join(root, 'leader');
    leader = await openAgent({
      dataDir: leaderDir,
      appDir: APP_DIR,
      manifest,
      model: {
        kind: 'fixed',
        access: viaProvider(new ScriptedProvider(() => ({ text: '2' })), 'scripted'),
        label: 'scripted',
      },
      tools: '',
      secrets: vaultSecrets(leaderDir, 'test-passphrase'),
    });
    swarm = await openSwarm(leader.claw.swarm, leader.secrets, { ackWaitMs: 1500 });
    await Promise.all([
      startWorker('w1', 'Paris'),
      startWorker('w2', 'paris.'),
      startWorker('w3', 'Lyon'),
    ]);
  }, 120_000);

  afterAll(async () => {
    for (const worker of workers) worker.child.kill('SIGKILL');
    await swarm?.backend.close();
    await leader?.close();
    await nats?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('three worker processes are discovered and a leader-worker swarm votes by majority', async () => {
    const peers = await swarm.backend.discover('team');
    expect(peers.map((peer) => peer.id)).toEqual(['w1', 'w2', 'w3']);
    const coordinator = new SwarmCoordinator(swarm.settings, swarm.backend);
    const result = await coordinator.run({ goal: 'What is the capital of France?' });
    expect(result.outcome).toBe('completed');
    expect(new Set(result.reports.map((report) => report.worker))).toEqual(
      new Set(['w1', 'w2', 'w3']),
    );
    expect(result.votes).toEqual([
      { answer: expect.stringMatching(/^paris\.?$/i), count: 2 },
      { answer: 'Lyon', count: 1 },
    ]);
    // Each worker priced its 1000 tokens at $0.001: the swarm adds them up across processes.
    expect(result.tokens).toBe(3000);
    expect(result.costUsd).toBeCloseTo(0.003, 6);
  }, 60_000);

  it('pincer swarm status lists the members discovery sees', async () => {
    const shown = await runCliInProcess(['swarm', 'status', '--manifest', manifest, '--json'], {
      dataDir: path.join(root, 'leader'),
    });
    expect(shown.stderr).toBe('');
    expect(shown.code).toBe(0);
    const status = JSON.parse(shown.stdout);
    expect(status).toMatchObject({ swarm: 'team', backend: 'nats' });
    expect(status.peers.map((peer: { id: string }) => peer.id)).toEqual(['w1', 'w2', 'w3']);
  }, 30_000);

  it('pincer serve sends claw.swarm.delegate to the NATS work queue and reports what a member answered', async () => {
    // The CKP server's level-3 agent, its swarm renamed to this suite's and coordinated on NATS.
    const yaml = (
      await readFile(path.join(repoRoot, 'test/fixtures/ckp/serve/level-3.yaml'), 'utf8')
    )
      .replace('name: "crew"', 'name: "team"')
      .replace(
        'backend: "in-process"',
        `backend: "nats"\n        nats: { servers: "${nats.url}", ack_wait_ms: 1500, peer_ttl_ms: 3000 }`,
      );
    const served = path.join(root, 'served-claw.yaml');
    await writeFile(served, yaml);
    const claw = await loadClaw(served);
    const swarmMethods = swarmFor(claw);
    expect(swarmMethods).toBeInstanceOf(BackendSwarm);
    const dataDir = path.join(root, 'ckp');
    const host = new CkpHost({
      claw,
      open: () =>
        openAgent({
          dataDir,
          appDir: APP_DIR,
          manifest: served,
          model: {
            kind: 'fixed',
            access: viaProvider(new ScriptedProvider(() => ({ text: 'not me' })), 'scripted'),
            label: 'scripted',
          },
          tools: '',
          secrets: vaultSecrets(dataDir, 'test-passphrase'),
        }),
    });
    const open = sessionFactory({
      host,
      services: { tools: new ToolCalls({ channel: 'ckp', type: 'ckp' }), swarm: swarmMethods },
    });
    let peer: CkpPeer | undefined;
    const session = open((frame) => peer?.receive(frame), 'ckp:test');
    peer = new CkpPeer((frame) => {
      void session.receive(frame).then((answer) => {
        if (answer) peer?.receive(answer);
      });
    });
    try {
      expect((await peer.initialize()).result).toMatchObject({ conformanceLevel: 'level-3' });
      // Discovery is the backend's: the three worker processes, not the manifest's list.
      const found = await peer.request('claw.swarm.discover', { swarm: 'team' });
      const peers = (found.result as { peers: Array<{ identity: string; status: string }> }).peers;
      expect(peers).toHaveLength(3);
      for (const member of peers)
        expect(member).toMatchObject({ identity: 'member', status: 'ready' });

      const delegated = await peer.request('claw.swarm.delegate', {
        task_id: 'ckp-nats-1',
        task: { description: 'What is the capital of France?' },
        context: { request_id: 'dlg-nats-1', swarm: 'team' },
      });
      expect(delegated.result).toEqual({ acknowledged: true });
      await peer.until(() => peer.requests.some((r) => r.method === 'claw.swarm.report'));
      const report = peer.requests.find((r) => r.method === 'claw.swarm.report')?.params;
      expect(report).toMatchObject({
        task_id: 'ckp-nats-1',
        status: 'completed',
        token_usage: 1000,
      });
      const result = report?.result as { summary: string; worker: string };
      expect(['Paris', 'paris.', 'Lyon']).toContain(result.summary);
      expect(['w1', 'w2', 'w3']).toContain(result.worker);
      // The served agent's own model never ran the task.
      expect(result.summary).not.toBe('not me');

      const again = await peer.request('claw.swarm.delegate', {
        task_id: 'ckp-nats-1',
        task: { description: 'again' },
        context: { request_id: 'dlg-nats-2', swarm: 'team' },
      });
      expect(again.error).toMatchObject({ code: -32602 });
      expect(
        (
          await peer.request('claw.swarm.report', {
            task_id: 'nobody',
            status: 'completed',
            result: 'x',
          })
        ).result,
      ).toEqual({ acknowledged: false });
    } finally {
      await host.stop(0);
      await swarmMethods.close?.();
    }
  }, 60_000);

  it('best-of-n takes the answer the leader picks', async () => {
    const coordinator = new SwarmCoordinator(
      { ...swarm.settings, strategy: 'best-of-n' },
      swarm.backend,
      agentLeader(leader),
    );
    const result = await coordinator.run({ goal: 'Name a French city.' });
    expect(result.outcome).toBe('completed');
    expect(result.chosen).toBe(1);
    expect(result.answer).toBe(result.reports[1]?.result);
  }, 60_000);

  it("peer-to-peer across processes: each round-2 run read the other members' round-1 answers", async () => {
    const coordinator = new SwarmCoordinator(
      { ...swarm.settings, topology: 'peer-to-peer', rounds: 2 },
      swarm.backend,
    );
    const result = await coordinator.run({ goal: 'What is the capital of France?' });
    expect(result.outcome).toBe('completed');
    expect(result.rounds).toBe(2);
    expect(result.reports).toHaveLength(6);
    // The workers answer as scripted whatever they read: the last round votes as the first.
    expect(result.votes).toEqual([
      { answer: expect.stringMatching(/^paris\.?$/i), count: 2 },
      { answer: 'Lyon', count: 1 },
    ]);
    const revisions: string[] = [];
    for (const worker of workers.filter((w) => ['w1', 'w2', 'w3'].includes(w.id))) {
      const records = openAgentRecords(worker.dataDir);
      try {
        for (const run of records.store.listRuns()) {
          const swarmRun = run.options.swarm as { operation?: string } | undefined;
          if (swarmRun?.operation === result.operation && run.goal.includes('Round 2'))
            revisions.push(run.goal);
        }
      } finally {
        records.close();
      }
    }
    expect(revisions).toHaveLength(3);
    for (const goal of revisions) {
      const answers = [...goal.matchAll(/<<<peer-answer (\w+)\n([\s\S]*?)\n>>>peer-answer \1/g)];
      expect(answers.map((a) => a[2]).sort()).toEqual(['Lyon', 'Paris', 'paris.']);
      expect(goal).toMatch(/Your previous answer:\n<<<peer-answer/);
      expect(goal.match(/Member \d's answer:/g)).toHaveLength(2);
    }
  }, 60_000);

  it('a swarm cost limit stops every member', async () => {
    const coordinator = new SwarmCoordinator(
      { ...swarm.settings, limits: { costUsd: 0.0005 } },
      swarm.backend,
    );
    // One quick task costs $0.001; the two slow ones would run without end.
    const result = await coordinator.run({
      goal: 'limits',
      tasks: ['slow one', 'quick', 'slow two'],
    });
    expect(result.outcome).toBe('limit');
    expect(result.reason).toMatch(/limit \$0\.0005/);
    // The slow tasks' runs were cancelled on their members when the limit was passed.
    expect(result.reports.map((report) => report.status).sort()).toEqual([
      'completed',
      'failed',
      'failed',
    ]);
    for (const report of result.reports.filter((r) => r.status === 'failed'))
      expect(report.result).toMatch(/^cancelled/);
  }, 60_000);

  it('a worker killed mid-task: the task is delivered again and finished once', async () => {
    const hanging = await startWorker('h1', 'never', { swarm: 'crash' });
    const coordinator = new SwarmCoordinator(
      { ...swarm.settings, name: 'crash', workers: 1 },
      swarm.backend,
    );
    const running = coordinator.run({ goal: 'a slow job' });
    await hanging.line('started');
    hanging.child.kill('SIGKILL');
    const rescuer = await startWorker('r1', 'rescued', { swarm: 'crash', mode: 'plain' });
    const result = await running;
    expect(result.outcome).toBe('completed');
    expect(result.reports).toEqual([
      expect.objectContaining({ worker: 'r1', status: 'completed', result: 'rescued', attempt: 2 }),
    ]);
    // The rescuer ran it once, told that an earlier attempt was interrupted.
    const records = openAgentRecords(rescuer.dataDir);
    try {
      const runs = records.store.listRuns().filter((run) => run.options.swarm !== undefined);
      expect(runs).toHaveLength(1);
      expect(runs[0]?.goal).toMatch(/earlier attempt at this task was interrupted/);
    } finally {
      records.close();
    }
  }, 60_000);
});
