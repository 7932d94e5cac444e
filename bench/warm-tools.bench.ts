/**
 * Warm tool workers in a long-lived agent, against the scripted OpenAI-compatible server on
 * 127.0.0.1: the gap from the end of the reply that calls fs/read to the next model request,
 * in the same run for
 *  - warm: a long-lived agent that keeps one worker per lane ready (the gateway, daemon, app);
 *    between turns it waits until the lane's next worker is up, as a person's pause would;
 *  - cold: a new agent's first tool call, whose worker starts with the call (what every
 *    long-lived process paid on its first call before, and `pincer run` still pays);
 *  - reused: a first-use agent after its first call, running on the worker it kept (the floor:
 *    a round trip on the worker's pipe, with no start at all).
 * The agent runs its workers from the TypeScript source (through tsx), which starts slower than
 * the bundle the CLI and app ship; so the sandbox's own share is measured again with the built
 * worker (dist/sandbox-worker.js, `npm run build:cli`): one fs/read through the executor.
 * Then what a warm worker costs in memory (RSS and PSS of its process tree, built worker).
 * PINCER_BENCH_SAMPLES sets the rounds (default 15).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Agent, openAgent } from '../src/main/core/agent/index.js';
import { defaultWorkerEntry } from '../src/main/core/sandbox/pool.js';
import { createSandbox } from '../src/main/core/sandbox/sandbox.js';
import { sandboxSettings } from '../src/main/core/sandbox/settings.js';
import { createSecretStore } from '../src/main/core/secrets/index.js';
import { fsRead } from '../src/main/core/tools/builtins/fs.js';
import { range, spread, treePssKb, treeRssKb } from './process.js';
import { type ScriptedServer, startScriptedServer } from './scripted-server.js';

const APP_DIR = path.join(import.meta.dirname, '..');

async function open(server: ScriptedServer, warmTools: boolean) {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-bench-warm-'));
  const workspace = path.join(dataDir, 'workspace', 'pincer');
  await mkdir(workspace, { recursive: true });
  await writeFile(path.join(workspace, 'note.txt'), 'The note says hello.\n');
  const agent = await openAgent({
    dataDir,
    appDir: APP_DIR,
    model: { kind: 'server', protocol: 'openai-compatible', endpoint: server.url, model: 'b' },
    secrets: createSecretStore({ dataDir, env: { PINCER_KEYCHAIN: 'off' } }),
    warmTools,
  });
  return {
    agent,
    close: async () => {
      await agent.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** One tool turn in a new session; the gap between its two model requests, in ms. */
async function toolTurn(agent: Agent, server: ScriptedServer): Promise<number> {
  const before = server.calls.length;
  const handle = agent.runtime.start({ text: 'please read note.txt' });
  const result = await handle.done;
  if (result.outcome !== 'completed') throw new Error(`turn ended ${result.outcome}`);
  const [first, second] = server.calls.slice(before);
  if (!first || !second) throw new Error('the turn made fewer than two model requests');
  return second.arrived - first.ended;
}

const DIST = path.join(import.meta.dirname, '..', 'dist');

/** fs/read through a sandbox on the built worker: warm, cold (pool started per call), reused. */
async function builtWorker(samples: number): Promise<void> {
  const entry = defaultWorkerEntry(DIST);
  if (!entry.file.startsWith(DIST)) {
    console.log(
      '\n(dist/sandbox-worker.js is missing: run `npm run build:cli` for the built worker)',
    );
    return;
  }
  const workspace = await mkdtemp(path.join(os.tmpdir(), 'pincer-bench-warm-ws-'));
  await writeFile(path.join(workspace, 'note.txt'), 'The note says hello.\n');
  const settings = sandboxSettings({ workspace });
  const call = async (sandbox: Awaited<ReturnType<typeof createSandbox>>) => {
    const start = performance.now();
    const output = await sandbox.executor.run(
      fsRead,
      { path: 'note.txt' },
      { signal: new AbortController().signal, workspace, env: {} },
    );
    if (output.isError) throw new Error(output.content);
    return performance.now() - start;
  };
  const warm = await createSandbox({ settings, start: 'warm', pool: { entry } });
  const reused = await createSandbox({ settings, start: 'first-use', pool: { entry } });
  const times = { warm: [] as number[], cold: [] as number[], reused: [] as number[] };
  try {
    await warm.workers().ready();
    await call(warm);
    await call(reused);
    for (let round = 0; round < samples; round++) {
      await warm.workers().ready();
      times.warm.push(await call(warm));
      const cold = await createSandbox({ settings, start: 'first-use', pool: { entry } });
      try {
        times.cold.push(await call(cold));
      } finally {
        await cold.close();
      }
      times.reused.push(await call(reused));
    }
    const fmt = (v: number) => `${v.toFixed(1)} ms`;
    const coldMedian = spread(times.cold).median;
    const floor = spread(times.reused).median;
    console.log(`\nfs/read through the sandbox, built worker, ${samples} interleaved rounds`);
    for (const [name, values] of Object.entries(times)) {
      const s = spread(values);
      console.log(
        `  ${name.padEnd(8)} ${range(s, fmt).padEnd(30)} vs cold ${(s.median / coldMedian).toFixed(3)}x, vs reused ${(s.median / floor).toFixed(2)}x`,
      );
    }
    await warm.workers().ready();
    const idle = warm.workers().idle;
    const mib = (kb: number) => `${(kb / 1024).toFixed(1)} MiB`;
    console.log(
      `  warm workers kept ready: ${idle.length} (one per lane); each: RSS ${idle.map((pid) => mib(treeRssKb(pid))).join(', ')}; PSS ${idle.map((pid) => mib(treePssKb(pid))).join(', ')}`,
    );
  } finally {
    await warm.close();
    await reused.close();
    await rm(workspace, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  const samples = Number(process.env.PINCER_BENCH_SAMPLES ?? 15);
  const server = await startScriptedServer();
  const warm = await open(server, true);
  const reused = await open(server, false);
  const gaps = { warm: [] as number[], cold: [] as number[], reused: [] as number[] };
  try {
    // Warm-up: code paths loaded; the reused agent's worker started.
    await warm.agent.toolWorkers().ready();
    await toolTurn(warm.agent, server);
    await toolTurn(reused.agent, server);
    for (let round = 0; round < samples; round++) {
      await warm.agent.toolWorkers().ready();
      gaps.warm.push(await toolTurn(warm.agent, server));
      const cold = await open(server, false);
      try {
        gaps.cold.push(await toolTurn(cold.agent, server));
      } finally {
        await cold.close();
      }
      gaps.reused.push(await toolTurn(reused.agent, server));
    }
    const fmt = (v: number) => `${v.toFixed(1)} ms`;
    const floor = spread(gaps.reused).median;
    const coldMedian = spread(gaps.cold).median;
    console.log(
      `\nwarm tools: end of the tool-call reply -> next model request (fs/read), ${samples} interleaved rounds, median (min..max)`,
    );
    const rows: Array<[string, number[]]> = [
      ['warm (worker started before the call)', gaps.warm],
      ['cold (worker starts with the call)', gaps.cold],
      ['reused (worker kept from a call before)', gaps.reused],
    ];
    for (const [name, values] of rows) {
      const s = spread(values);
      console.log(
        `  ${name.padEnd(42)} ${range(s, fmt).padEnd(30)} vs cold ${(s.median / coldMedian).toFixed(3)}x, vs reused ${(s.median / floor).toFixed(2)}x`,
      );
    }
    await warm.agent.toolWorkers().ready();
    const idle = warm.agent.toolWorkers().idle;
    const rss = idle.map((pid) => treeRssKb(pid));
    const pss = idle.map((pid) => treePssKb(pid));
    const mib = (kb: number) => `${(kb / 1024).toFixed(1)} MiB`;
    console.log(
      `  warm workers kept ready (tsx source worker): ${idle.length}; each: RSS ${rss.map(mib).join(', ')}; PSS ${pss.map(mib).join(', ')}`,
    );
  } finally {
    await warm.close();
    await reused.close();
    await server.close();
  }
  await builtWorker(samples);
}
