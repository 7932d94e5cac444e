/**
 * `pincer gateway` (built CLI) against the scripted OpenAI-compatible server (#25): launch to
 * ready (its "Open:" line) against `node -e 0`, idle RSS of its process tree, then warm turns in
 * one session through the real WebSocket bridge (hello, chat.send, run events until
 * run.finished) against a bare fetch of the same model request, and RSS growth over the turns.
 * PINCER_BENCH_TURNS (default 300), PINCER_BENCH_IDLE_S (default 5), PINCER_BENCH_SAMPLES
 * (launches, default 5). Needs `npm run build` (the UI it serves, and dist/cli.js).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { mib, range, run as runProcess, spread, treePssKb, treeRssKb } from './process.js';
import { startScriptedServer } from './scripted-server.js';
import { CLI } from './startup.bench.js';

interface Gateway {
  child: ChildProcess;
  url: string;
  readyMs: number;
}

function launch(endpoint: string, home: string): Promise<Gateway> {
  const start = performance.now();
  const child = spawn(
    process.execPath,
    [CLI, 'gateway', '--protocol', 'openai-compatible', '--endpoint', endpoint, '--model', 'b'],
    { env: { ...process.env, PINCER_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (data: Buffer) => {
      out += data;
      const match = /Open: (http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]+)/.exec(out);
      if (match?.[1]) resolve({ child, url: match[1], readyMs: performance.now() - start });
    });
    child.stderr?.on('data', (data: Buffer) => {
      out += data;
    });
    child.on('exit', (code) => reject(new Error(`gateway exited (${code}): ${out}`)));
  });
}

async function stop(gateway: Gateway): Promise<void> {
  const exited = new Promise((resolve) => gateway.child.once('exit', resolve));
  gateway.child.kill('SIGINT');
  await exited;
}

/** A WebSocket client of the bridge: `turn` sends one message and waits for its run to end. */
async function connect(url: string) {
  const { host, hash } = new URL(url);
  const token = hash.replace('#token=', '');
  const ws = new WebSocket(`ws://${host}/ipc`);
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  let onFrame: (frame: { type: string; [key: string]: unknown }) => void = () => undefined;
  ws.on('message', (data) => onFrame(JSON.parse(data.toString())));
  const next = (want: (frame: { type: string; [key: string]: unknown }) => boolean) =>
    new Promise<{ type: string; [key: string]: unknown }>((resolve) => {
      onFrame = (frame) => {
        if (want(frame)) resolve(frame);
      };
    });
  const welcome = next((frame) => frame.type === 'welcome');
  ws.send(JSON.stringify({ type: 'hello', token }));
  await welcome;
  let id = 0;
  let sessionId: string | undefined;
  return {
    async turn(text: string): Promise<void> {
      const callId = ++id;
      let finished = false;
      let answered = false;
      await new Promise<void>((resolve) => {
        onFrame = (frame) => {
          if (frame.type === 'result' && frame.id === callId) {
            const result = frame.result as { ok: boolean; value?: { sessionId: string } };
            if (!result.ok) throw new Error(`chat.send failed: ${JSON.stringify(result)}`);
            sessionId = result.value?.sessionId;
            answered = true;
          }
          const event = frame.event as { topic?: string; event?: { type?: string } } | undefined;
          if (event?.topic === 'run' && event.event?.type === 'run.finished') finished = true;
          if (answered && finished) resolve();
        };
        ws.send(
          JSON.stringify({
            type: 'call',
            id: callId,
            channel: 'chat.send',
            request: { text, ...(sessionId ? { sessionId } : {}) },
          }),
        );
      });
    },
    close: () => ws.close(),
  };
}

export async function run(): Promise<void> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  const turns = Number(process.env.PINCER_BENCH_TURNS ?? 300);
  const idleSeconds = Number(process.env.PINCER_BENCH_IDLE_S ?? 5);
  const launches = Number(process.env.PINCER_BENCH_SAMPLES ?? 5);
  const server = await startScriptedServer();
  const home = await mkdtemp(path.join(os.tmpdir(), 'pincer-bench-gateway-'));
  try {
    const ready: number[] = [];
    const floor: number[] = [];
    for (let i = 0; i < launches + 1; i++) {
      const baseline = await runProcess([process.execPath, '-e', '0']);
      const gateway = await launch(server.url, home);
      await stop(gateway);
      if (i === 0) continue;
      floor.push(baseline.ms);
      ready.push(gateway.readyMs);
    }
    const readySpread = spread(ready);
    const floorSpread = spread(floor);
    console.log(`\ngateway: ${launches} launches, median (min..max)`);
    console.log(`  node -e 0 (baseline)          ${range(floorSpread)}`);
    console.log(
      `  launch to ready               ${range(readySpread)}  ratio ${(readySpread.median / floorSpread.median).toFixed(2)}x`,
    );

    const gateway = await launch(server.url, home);
    try {
      const pid = gateway.child.pid ?? 0;
      await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
      const idle = treeRssKb(pid);
      console.log(
        `  idle RSS (tree, ready + ${idleSeconds} s)  ${mib(idle)} (PSS ${mib(treePssKb(pid))}: shared pages once)`,
      );
      const client = await connect(gateway.url);
      const bare = async () => {
        const response = await fetch(`${server.url}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'b',
            stream: true,
            messages: [{ role: 'user', content: 'hi' }],
          }),
        });
        await response.text();
      };
      const turnTimes: number[] = [];
      const bareTimes: number[] = [];
      let warmRss = 0;
      const warmup = Math.max(1, Math.floor(turns / 10));
      for (let i = 0; i < turns; i++) {
        let start = performance.now();
        await bare();
        bareTimes.push(performance.now() - start);
        start = performance.now();
        await client.turn(`hello number ${i}`);
        turnTimes.push(performance.now() - start);
        if (i === warmup - 1) warmRss = treeRssKb(pid);
      }
      const after = treeRssKb(pid);
      client.close();
      const turn = spread(turnTimes.slice(warmup));
      const base = spread(bareTimes.slice(warmup));
      const fmt = (v: number) => `${v.toFixed(1)} ms`;
      console.log(`  bare fetch of a model request ${range(base, fmt)}`);
      console.log(
        `  warm turn over the WebSocket  ${range(turn, fmt)}  ratio ${(turn.median / base.median).toFixed(2)}x`,
      );
      console.log(
        `  RSS after ${turns} turns        ${mib(after)}: ${(((after - idle) / idle) * 100).toFixed(1)}% over idle, ` +
          `${(((after - warmRss) / warmRss) * 100).toFixed(1)}% over turn ${warmup}`,
      );
      console.log(`  request bytes of the last model call: ${server.calls.at(-1)?.bytes}`);
    } finally {
      await stop(gateway);
    }
  } finally {
    await server.close();
    await rm(home, { recursive: true, force: true });
  }
}
