/**
 * A turn against the scripted OpenAI-compatible server on 127.0.0.1 (#25): a text turn and a
 * turn with one sandboxed tool round trip (fs/read), whole process (`pincer run`, built CLI)
 * against a bare Node process making the same request, and in process (one agent from the
 * root, many turns) against a bare `fetch` of the same request. The tool turn also reports the
 * time between the two model calls outside the tool itself.
 * PINCER_BENCH_SAMPLES sets the whole-process rounds (default 7; in process: 5x that).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { openAgent } from '../src/main/core/agent/index.js';
import { createSecretStore } from '../src/main/core/secrets/index.js';
import type { SessionId } from '../src/main/core/terms.js';
import {
  countLoads,
  mib,
  type ProcessCase,
  peakTree,
  range,
  spread,
  timeCases,
} from './process.js';
import { startScriptedServer, WRITE_MS } from './scripted-server.js';
import { bareRequestArgs, CLI, turnArgs } from './startup.bench.js';

const APP_DIR = path.join(import.meta.dirname, '..');

async function prepareHome(home: string): Promise<void> {
  const workspace = path.join(home, 'workspace', 'pincer');
  await mkdir(workspace, { recursive: true });
  await writeFile(path.join(workspace, 'note.txt'), 'The note says hello.\n');
}

async function wholeProcess(url: string, samples: number): Promise<void> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'pincer-bench-home-'));
  await prepareHome(home);
  const env = { PINCER_HOME: home };
  const cases: ProcessCase[] = [
    { name: 'bare node streaming request', argv: bareRequestArgs(url) },
    { name: 'pincer run: text turn', argv: turnArgs(url, 'hi'), env },
    { name: 'pincer run: tool round trip', argv: turnArgs(url, 'please read note.txt'), env },
    { name: `pincer run: text written over ${WRITE_MS} ms`, argv: turnArgs(url, 'hi slowly'), env },
    {
      name: `pincer run: tool call written over ${WRITE_MS} ms`,
      argv: turnArgs(url, 'please read note.txt slowly'),
      env,
    },
  ];
  try {
    const times = await timeCases(cases, samples);
    const floor = times.get('bare node streaming request')?.median ?? 1;
    console.log(`\nturn, whole process: ${samples} interleaved rounds, median (min..max)`);
    for (const c of cases) {
      const time = times.get(c.name);
      if (!time) continue;
      const peaks = [];
      for (let i = 0; i < 3; i++) peaks.push((await peakTree(c)).peakKb);
      const counts = await countLoads(c);
      console.log(
        `  ${c.name.padEnd(42)} ${range(time).padEnd(24)} ratio ${(time.median / floor).toFixed(2)}x` +
          `  peak RSS (tree) ${mib(spread(peaks).median)}` +
          (counts ? `  files ${counts.files}  processes ${counts.processes}` : ''),
      );
    }
    // What a tool adds over a text turn, when the call comes whole and when the model writes it:
    // the worker starts as the call begins, so a written call hides its start.
    const median = (name: string) => times.get(name)?.median ?? Number.NaN;
    const atOnce = median('pincer run: tool round trip') - median('pincer run: text turn');
    const written =
      median(`pincer run: tool call written over ${WRITE_MS} ms`) -
      median(`pincer run: text written over ${WRITE_MS} ms`);
    console.log(
      `  a tool's cost over a text turn: ${atOnce.toFixed(0)} ms when the call comes at once, ` +
        `${written.toFixed(0)} ms when it is written over ${WRITE_MS} ms`,
    );
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

async function inProcess(server: Awaited<ReturnType<typeof startScriptedServer>>, rounds: number) {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-bench-agent-'));
  await prepareHome(dataDir);
  const agent = await openAgent({
    dataDir,
    appDir: APP_DIR,
    model: {
      kind: 'server',
      protocol: 'openai-compatible',
      endpoint: server.url,
      model: 'scripted',
    },
    secrets: createSecretStore({ dataDir, env: { PINCER_KEYCHAIN: 'off' } }),
  });
  const toolTimes: Array<{ started: number; finished: number }> = [];
  agent.onRunEvent((event) => {
    if (event.type === 'tool.started') toolTimes.push({ started: performance.now(), finished: 0 });
    const last = toolTimes.at(-1);
    if (event.type === 'tool.finished' && last) last.finished = performance.now();
  });
  let session: SessionId | undefined;
  const turn = async (text: string) => {
    const handle = agent.runtime.start({ text, sessionId: session });
    session = handle.sessionId;
    const result = await handle.done;
    if (result.outcome !== 'completed') throw new Error(`turn ended ${result.outcome}`);
  };
  const bare = async () => {
    const response = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'scripted',
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    await response.text();
  };
  const cases: Array<[string, () => Promise<void>]> = [
    ['bare fetch of the same request', bare],
    ['text turn', () => turn('hi')],
    ['tool round trip', () => turn('please read note.txt')],
  ];
  const times = new Map<string, number[]>(cases.map(([name]) => [name, []]));
  const gaps: number[] = [];
  try {
    // The first tool call starts the sandbox's workers: that round is warm-up.
    for (let round = 0; round < rounds + 1; round++) {
      for (const [name, fn] of cases) {
        // Every turn starts a new session now and then, so history stays short.
        if (round % 5 === 0) session = undefined;
        const callsBefore = server.calls.length;
        const start = performance.now();
        await fn();
        const elapsed = performance.now() - start;
        if (round === 0) continue;
        times.get(name)?.push(elapsed);
        if (name === 'tool round trip') {
          const [first, second] = server.calls.slice(callsBefore);
          const tool = toolTimes.at(-1);
          if (first && second && tool)
            gaps.push(second.arrived - first.ended - (tool.finished - tool.started));
        }
      }
    }
    const floor = spread(times.get('bare fetch of the same request') ?? []).median;
    console.log(`\nturn, in process (one agent): ${rounds} interleaved rounds, median (min..max)`);
    for (const [name] of cases) {
      const s = spread(times.get(name) ?? []);
      const fmt = (v: number) => `${v.toFixed(1)} ms`;
      console.log(
        `  ${name.padEnd(32)} ${range(s, fmt).padEnd(28)} ratio ${(s.median / floor).toFixed(2)}x`,
      );
    }
    const g = spread(gaps);
    console.log(
      `  between the two model calls, outside the tool: ${range(g, (v) => `${v.toFixed(1)} ms`)}`,
    );
    console.log(
      `  request bytes per model call: ${spread(server.calls.filter((c) => c.system).map((c) => c.bytes)).median}`,
    );
  } finally {
    await agent.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  const samples = Number(process.env.PINCER_BENCH_SAMPLES ?? 7);
  const server = await startScriptedServer();
  try {
    await inProcess(server, samples * 5);
    if (existsSync(CLI)) await wholeProcess(server.url, samples);
    else console.log(`\n(${CLI} is missing: run \`npm run build:cli\` for the whole-process turn)`);
  } finally {
    await server.close();
  }
}
