/**
 * CLI start-up, whole process: `pincer --version`, `--help`, and a headless text turn
 * against the scripted OpenAI-compatible server on 127.0.0.1, each against `node -e 0` (the
 * floor of any Node CLI) run in the same rounds; the turn also against a bare Node script that
 * makes the same streaming request. Needs the built CLI (`npm run build:cli`). Each Node line
 * prepared by `node scripts/node-runtimes.mjs` gets the same cases, run in the same rounds.
 * PINCER_BENCH_SAMPLES sets the rounds (default 7).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { TESTED_NODE_MAJORS } from '../src/main/core/doctor/node-check.js';
import { installCli, preparedRuntime } from '../test/support/node-runtimes.js';
import {
  countLoads,
  hasStrace,
  mib,
  type ProcessCase,
  peakTree,
  range,
  spread,
  timeCases,
} from './process.js';
import { startScriptedServer } from './scripted-server.js';

export const CLI = path.join(import.meta.dirname, '..', 'dist', 'cli.js');

export function turnArgs(url: string, message: string): string[] {
  return [
    process.execPath,
    CLI,
    'run',
    '--protocol',
    'openai-compatible',
    '--endpoint',
    url,
    '--model',
    'scripted',
    message,
  ];
}

/**
 * The same streaming request Pincer makes, by a bare Node process with node:http (as Pincer's
 * model client): the floor for a turn.
 */
export function bareRequestArgs(url: string): string[] {
  const script = `import http from 'node:http'; const body = JSON.stringify({model: 'scripted', stream: true, messages: [{role: 'user', content: 'hi'}]}); http.request(${JSON.stringify(`${url}/chat/completions`)}, {method: 'POST', headers: {'content-type': 'application/json', 'content-length': Buffer.byteLength(body)}}, (res) => res.resume()).end(body);`;
  return [process.execPath, '--input-type=module', '-e', script];
}

/** The same with fetch, which costs a Node process ~100 ms and ~40 MiB more on first use. */
export function bareFetchArgs(url: string): string[] {
  const script = `const r = await fetch(${JSON.stringify(`${url}/chat/completions`)}, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({model: 'scripted', stream: true, messages: [{role: 'user', content: 'hi'}]})}); await r.text();`;
  return [process.execPath, '--input-type=module', '-e', script];
}

export async function run(): Promise<void> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build:cli\` first`);
  const samples = Number(process.env.PINCER_BENCH_SAMPLES ?? 7);
  const server = await startScriptedServer();
  const home = await mkdtemp(path.join(os.tmpdir(), 'pincer-bench-home-'));
  const env = { PINCER_HOME: home };
  const cases: ProcessCase[] = [
    { name: 'node -e 0 (baseline)', argv: [process.execPath, '-e', '0'] },
    { name: 'pincer --version', argv: [process.execPath, CLI, '--version'], env },
    { name: 'pincer --help', argv: [process.execPath, CLI, '--help'], env },
    { name: 'bare node streaming request', argv: bareRequestArgs(server.url) },
    { name: 'same request with fetch', argv: bareFetchArgs(server.url) },
    { name: 'pincer run (text turn)', argv: turnArgs(server.url, 'hi'), env },
  ];
  // The same on each other LTS line prepared by `node scripts/node-runtimes.mjs`.
  for (const major of TESTED_NODE_MAJORS) {
    const runtime = preparedRuntime(major);
    if (!runtime) {
      console.log(`  (Node ${major} not prepared: run \`node scripts/node-runtimes.mjs\`)`);
      continue;
    }
    const cli = await installCli(runtime);
    const on = (argv: string[]) => [
      runtime.node,
      ...argv.slice(1).map((a) => (a === CLI ? cli : a)),
    ];
    cases.push(
      { name: `node ${major}: node -e 0`, argv: [runtime.node, '-e', '0'] },
      { name: `node ${major}: pincer --help`, argv: on([process.execPath, CLI, '--help']), env },
      { name: `node ${major}: pincer run`, argv: on(turnArgs(server.url, 'hi')), env },
    );
  }
  try {
    const times = await timeCases(cases, samples);
    const floor = times.get('node -e 0 (baseline)')?.median ?? 1;
    console.log(`\nstartup: whole process, ${samples} interleaved rounds, median (min..max)`);
    for (const c of cases) {
      const time = times.get(c.name);
      if (!time) continue;
      const peaks = [];
      for (let i = 0; i < 3; i++) peaks.push((await peakTree(c)).peakKb);
      const counts = await countLoads(c);
      console.log(
        `  ${c.name.padEnd(30)} ${range(time).padEnd(24)} ratio ${(time.median / floor).toFixed(2)}x` +
          `  peak RSS ${mib(spread(peaks).median)}` +
          (counts ? `  files ${counts.files}  processes ${counts.processes}` : ''),
      );
    }
    if (!hasStrace) console.log('  (strace not installed: no file and process counts)');
    const bytes = server.calls.filter((call) => call.system).map((call) => call.bytes);
    console.log(`  request bytes per model call: ${spread(bytes).median}`);
  } finally {
    await server.close();
    await rm(home, { recursive: true, force: true });
  }
}
