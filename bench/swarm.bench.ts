/**
 * Swarms: the round trip of one delegation (task out, report back) through the in-process
 * backend and through a real nats-server (JetStream work queue, KV results), against a direct
 * call of the same handler; then throughput of a leader-worker swarm on the scripted model
 * (each reply takes about 200 ms) as worker processes go from 1 to 4.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { SwarmSettings } from '../src/main/core/swarm/coordinator.js';
import { InProcessBackend } from '../src/main/core/swarm/in-process.js';
import { SwarmCoordinator } from '../src/main/core/swarm/index.js';
import { NatsBackend } from '../src/main/core/swarm/nats.js';
import type { SwarmTask, TaskHandler } from '../src/main/core/swarm/types.js';
import { writeSwarmManifest } from '../test/integration/swarm/fixtures/manifest.js';
import { natsMissing, startNats } from '../test/support/nats.js';
import { measure, report } from './lib.js';

const echo: TaskHandler = async (task) => ({
  status: 'completed',
  result: task.description,
  tokens: 0,
  costUsd: 0,
  durationMs: 0,
});

let serial = 0;
const task = (swarm: string): SwarmTask => ({
  id: `bench-${process.pid}-${serial++}`,
  swarm,
  operation: 'bench',
  description: 'ping',
});

export async function run(): Promise<void> {
  const missing = natsMissing();
  if (missing) {
    console.log(`swarm bench skipped: ${missing}`);
    return;
  }
  const nats = await startNats();
  const root = await mkdtemp(path.join(os.tmpdir(), 'pincer-bench-swarm-'));
  const children: ChildProcess[] = [];
  try {
    const local = new InProcessBackend();
    await local.serve({ id: 'w', swarm: 'rt', identity: 'w', role: 'worker' }, echo);
    const leader = await NatsBackend.connect({ servers: [nats.url] });
    const member = await NatsBackend.connect({ servers: [nats.url] });
    await member.serve({ id: 'w', swarm: 'rt', identity: 'w', role: 'worker' }, echo);
    const signal = new AbortController().signal;
    const results = await measure(
      [
        { name: 'direct handler call', fn: () => echo(task('rt'), { signal, attempt: 1 }) },
        { name: 'in-process backend delegate', fn: () => local.delegate(task('rt'), 10_000) },
        {
          name: 'nats backend delegate (JetStream)',
          fn: () => leader.delegate(task('rt'), 10_000),
        },
      ],
      { samples: 10, iterations: 50, warmup: 2 },
    );
    report('swarm: one delegation round trip', results);
    await member.close();
    await local.close();

    // Throughput: the same 8 tasks, 1 to 4 worker processes with the scripted model.
    const manifest = await writeSwarmManifest(root, { backend: 'nats', natsUrl: nats.url });
    const settings: SwarmSettings = {
      name: 'tp',
      topology: 'leader-worker',
      workers: 8,
      maxParallel: 8,
      strategy: 'merge',
      timeoutMs: 120_000,
      retries: 0,
      deadLetter: false,
      limits: {},
    };
    const coordinator = new SwarmCoordinator(settings, leader);
    console.log('\nswarm: leader-worker throughput, 8 tasks, scripted model (~200 ms a reply)');
    let first = 0;
    for (let workers = 1; workers <= 4; workers++) {
      children.push(await startWorker(root, manifest, `bw${workers}`));
      const started = performance.now();
      const result = await coordinator.run({ goal: 'answer' });
      const seconds = (performance.now() - started) / 1000;
      const rate = result.reports.length / seconds;
      first ||= rate;
      console.log(
        `  ${workers} worker process(es)  ${rate.toFixed(2)} tasks/s  speed-up ${(rate / first).toFixed(2)}x  (${result.outcome})`,
      );
    }
    await leader.close();
  } finally {
    for (const child of children) child.kill('SIGKILL');
    await nats.stop();
    await rm(root, { recursive: true, force: true });
  }
}

async function startWorker(root: string, manifest: string, id: string): Promise<ChildProcess> {
  const script = path.resolve(import.meta.dirname, '../test/integration/swarm/fixtures/worker.ts');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', script, path.join(root, id), manifest, id, 'ok', 'plain', 'tp'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout as NonNullable<typeof child.stdout> });
  await new Promise<void>((resolve) => lines.on('line', (line) => line === 'ready' && resolve()));
  return child;
}
