/**
 * A swarm is one trace across processes: a leader here and two worker processes on a real
 * nats-server, each exporting its spans over OTLP/HTTP to one receiver on 127.0.0.1. The leader's
 * delegation span for each task is the parent of the worker's run span (through the task's
 * traceparent header), and no prompt, model output or secret is in any exported payload.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agent, openAgent } from '../../../src/main/core/agent/index.js';
import { viaProvider } from '../../../src/main/core/models/access.js';
import { createSecretStore } from '../../../src/main/core/secrets/index.js';
import { openSwarm, SwarmCoordinator } from '../../../src/main/core/swarm/index.js';
import type { OpenedSwarm } from '../../../src/main/core/swarm/open.js';
import { otelTraceId } from '../../../src/main/core/telemetry/ids.js';
import { delegationSpanId } from '../../../src/main/core/telemetry/index.js';
import { APP_DIR } from '../../support/assistant-harness.js';
import { repoRoot } from '../../support/cli-run.js';
import { type NatsServer, natsMissing, startNats } from '../../support/nats.js';
import {
  attr,
  otlpReceiver,
  otlpSpans,
  type ReceivedSpan,
  type Receiver,
  resourceAttr,
} from '../../support/otlp-receiver.js';
import { ScriptedProvider } from '../../support/scripted-provider.js';
import { FAST_SCRYPT } from '../../support/secrets.js';
import { writeSwarmManifest } from './fixtures/manifest.js';

const missing = natsMissing();
if (missing) console.warn(`skipping the swarm trace test: ${missing}`);

const WORKER = path.join(import.meta.dirname, 'fixtures', 'worker.ts');
const PROMPT = 'PROMPT-swarm-goal-never-exported-8d31';
const ANSWER = 'ANSWER-worker-output-never-exported-5e02';
const SECRET = 'sk-otlp-SECRET-swarm-trace-71c9a04e';

/** A worker process that has printed `ready`; `exited` resolves when it is gone. */
async function startWorker(root: string, manifest: string, id: string) {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', WORKER, path.join(root, id), manifest, id, ANSWER, 'plain'],
    {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, OTLP_TEST_TOKEN: SECRET },
    },
  );
  const exited = once(child, 'exit');
  const lines = createInterface({ input: child.stdout as NonNullable<typeof child.stdout> });
  await new Promise<void>((resolve, reject) => {
    lines.on('line', (line) => line === 'ready' && resolve());
    child.once('exit', (code) => reject(new Error(`worker ${id} exited (${code}) before ready`)));
  });
  return { id, child, exited };
}

describe.skipIf(missing)('a swarm is one trace across processes', () => {
  let nats: NatsServer;
  let otlp: Receiver;
  let root = '';
  let leader: Agent | undefined;
  let swarm: OpenedSwarm | undefined;
  const workers: Awaited<ReturnType<typeof startWorker>>[] = [];

  beforeAll(async () => {
    [nats, otlp] = await Promise.all([startNats(), otlpReceiver()]);
    root = await mkdtemp(path.join(os.tmpdir(), 'pincer-swarm-trace-'));
    const manifest = await writeSwarmManifest(root, {
      backend: 'nats',
      natsUrl: nats.url,
      workers: 2,
      telemetry: {
        exporters: [
          {
            type: 'otlp',
            endpoint: otlp.url,
            auth: { secret_ref: 'OTLP_TEST_TOKEN' },
            batch: { flush_interval_ms: 100 },
          },
        ],
      },
    });
    const leaderDir = path.join(root, 'leader');
    leader = await openAgent({
      dataDir: leaderDir,
      appDir: APP_DIR,
      manifest,
      model: {
        kind: 'fixed',
        access: viaProvider(new ScriptedProvider(() => ({ text: 'unused' })), 'scripted'),
        label: 'scripted',
      },
      tools: '',
      secrets: createSecretStore({
        dataDir: leaderDir,
        env: {
          PINCER_KEYCHAIN: 'off',
          PINCER_VAULT_PASSPHRASE: 'test-passphrase',
          OTLP_TEST_TOKEN: SECRET,
        },
        scrypt: FAST_SCRYPT,
      }),
    });
    swarm = await openSwarm(leader.claw.swarm, leader.secrets, { ackWaitMs: 1500 });
    workers.push(
      ...(await Promise.all([
        startWorker(root, manifest, 'w1'),
        startWorker(root, manifest, 'w2'),
      ])),
    );
  }, 120_000);

  afterAll(async () => {
    for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    await swarm?.backend.close();
    await leader?.close();
    await nats?.stop();
    await otlp?.close();
    await rm(root, { recursive: true, force: true });
  });

  it("leader-worker over NATS: each worker's run span is a child of the leader's delegation span, in one trace across three processes, with no prompt, output or secret exported", async () => {
    if (!swarm || !leader) throw new Error('the suite did not start');
    const coordinator = new SwarmCoordinator(
      swarm.settings,
      swarm.backend,
      undefined,
      leader.telemetry,
    );
    const result = await coordinator.run({ goal: PROMPT });
    expect(result.outcome).toBe('completed');
    expect(result.reports.map((r) => r.worker).sort()).toEqual(['w1', 'w2']);

    // Closing flushes: the leader's exporters here, each worker's on SIGTERM before it exits.
    await swarm.backend.close();
    await leader.close();
    await Promise.all(
      workers.map((worker) => {
        worker.child.kill('SIGTERM');
        return worker.exited;
      }),
    );
    for (const worker of workers) expect(worker.child.exitCode).toBe(0);

    const spans = otlpSpans(otlp.bodies);
    const [operation, ...others] = spans.filter((s) => s.name === 'swarm.operation team');
    expect(others).toEqual([]);
    if (!operation) throw new Error('no operation span was exported');
    const trace = otelTraceId(String(attr(operation, 'pincer.trace_id')));

    // Every span of every process is in the operation's one trace.
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([trace]));
    const instance = (span: ReceivedSpan) => String(resourceAttr(span, 'service.instance.id'));
    const leaderInstance = instance(operation);
    const byProcess = new Map<string, ReceivedSpan[]>();
    for (const span of spans)
      byProcess.set(instance(span), [...(byProcess.get(instance(span)) ?? []), span]);
    // The leader and the two workers, each with its own resource.
    expect(byProcess.size).toBe(3);
    for (const span of spans) expect(resourceAttr(span, 'service.name')).toBe('pincer');

    const delegations = spans.filter((s) => s.name === 'swarm.delegate team');
    expect(delegations).toHaveLength(2);
    for (const delegation of delegations) {
      expect(instance(delegation)).toBe(leaderInstance);
      expect(delegation.parentSpanId).toBe(operation.spanId);
      expect(delegation.spanId).toBe(
        delegationSpanId(String(attr(delegation, 'pincer.swarm.task_id'))),
      );
      expect(attr(delegation, 'pincer.swarm.outcome')).toBe('completed');
      expect(attr(delegation, 'pincer.swarm.topology')).toBe('leader-worker');
    }
    expect(delegations.map((d) => attr(d, 'pincer.swarm.worker')).sort()).toEqual(['w1', 'w2']);

    // Each worker's run span is a delegation's child, and every delegation has one.
    const runs = spans.filter((s) => s.name === 'pincer.run' && instance(s) !== leaderInstance);
    expect(runs).toHaveLength(2);
    expect(new Set(runs.map(instance)).size).toBe(2);
    expect(runs.map((r) => r.parentSpanId).sort()).toEqual(delegations.map((d) => d.spanId).sort());
    // The worker's model call hangs under its run, in the worker's process.
    for (const run of runs) {
      const model = spans.find((s) => s.parentSpanId === run.spanId);
      expect(model?.name).toMatch(/^chat /);
      expect(instance(model as ReceivedSpan)).toBe(instance(run));
    }

    // The secret went only where it belongs: the exporters' authorization header.
    expect(otlp.bodies.length).toBeGreaterThan(0);
    for (const body of otlp.bodies) expect(body.authorization).toBe(`Bearer ${SECRET}`);
    const raw = otlp.bodies.map((b) => b.text).join('\n');
    expect(raw).not.toContain(PROMPT);
    expect(raw).not.toContain(ANSWER);
    expect(raw).not.toContain(SECRET);
  }, 90_000);
});
