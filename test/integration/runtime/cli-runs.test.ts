/**
 * `pincer runs` as a user meets it: a `pincer run` killed with SIGKILL while the model streams
 * shows up as interrupted, `pincer runs resume` finishes it, `pincer runs show` tells the story.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startVendorServer, type VendorServer } from '../../fixtures/vendor-server.js';
import { openaiFrames } from '../../fixtures/vendor-streams.js';
import { builtCli, runBuiltCli } from '../../support/cli-run.js';

const cli = builtCli;
let home = '';
let server: VendorServer;

beforeAll(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'pincer-runs-'));
  server = await startVendorServer();
});
afterAll(async () => {
  await server.close();
  await rm(home, { recursive: true, force: true });
});

const pincer = (...args: string[]) =>
  runBuiltCli(args, { env: { ...process.env, PINCER_HOME: home } });

it('lists a killed run as interrupted, resumes it and shows it', async () => {
  const model = ['--protocol', 'openai', '--endpoint', server.url, '--model', 'm'];
  // The first reply starts streaming and then never ends.
  server.reply({
    kind: 'sse',
    frames: openaiFrames({ text: ['Thinking about it'] }).slice(0, 2),
    hang: true,
  });
  const child = spawn(process.execPath, [cli, 'run', ...model, '--json', 'plan my week'], {
    env: { ...process.env, PINCER_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  await new Promise<void>((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('"model.delta"')) resolve();
    });
  });
  const runId = JSON.parse(stdout.split('\n')[0] ?? '{}').run_id as string;
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGKILL');
  await exited;

  const listed = await pincer('runs', 'list');
  expect(listed.code).toBe(0);
  expect(listed.stdout).toMatch(
    new RegExp(`^${runId} .* interrupted in EXECUTING +plan my week$`, 'm'),
  );

  server.reply({ kind: 'sse', frames: openaiFrames({ text: ['Monday: rest.'] }) });
  const resumed = await pincer('runs', 'resume', runId, ...model);
  expect(resumed.stderr).toBe('');
  expect(resumed.code).toBe(0);
  expect(resumed.stdout).toBe('Monday: rest.\n');
  // The resumed request carries the original question once.
  const body = server.requests.at(-1)?.body as {
    messages: Array<{ role: string; content: string }>;
  };
  expect(body.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
    'plan my week',
  ]);

  const shown = await pincer('runs', 'show', runId);
  expect(shown.code).toBe(0);
  expect(shown.stdout).toContain('state IDLE, outcome completed');
  expect(shown.stdout).toMatch(/^user +msg_\S+ +plan my week$/m);
  expect(shown.stdout).toMatch(/^assistant +msg_\S+ +Monday: rest\.$/m);

  const again = await pincer('runs', 'resume', runId, ...model);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain('already completed');
  expect((await pincer('runs', 'show', 'run_nope')).stderr).toBe(
    'pincer runs show: no run run_nope\n',
  );
}, 60_000);
