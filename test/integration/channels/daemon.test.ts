/**
 * `pincer daemon` as a real child process (the built CLI) against a model server on 127.0.0.1:
 * it serves a signed webhook, refuses a second instance on the same data dir, reports its
 * channels, drains on SIGTERM, and after `kill -9` mid-run a new daemon resumes the run without
 * repeating the side effect it had completed.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeAll, expect, it, vi } from 'vitest';
import { openaiFrames } from '../../fixtures/vendor-streams.js';
import { runBuiltCli } from '../../support/cli-run.js';
import {
  DaemonProcesses,
  freePort,
  requireBuiltCli,
  signedPost,
  webhookChannel,
} from '../../support/daemon-process.js';

const SECRET = 'daemon-hook-secret';
const daemons = new DaemonProcesses();

beforeAll(requireBuiltCli);
afterEach(() => daemons.cleanUp());

async function setUp(autonomy = 'supervised') {
  const port = await freePort();
  const { env, args } = await daemons.setUp('pincer-daemon', {
    channels: [webhookChannel(port)],
    edit: (doc) => doc.setIn(['spec', 'identity', 'inline', 'autonomy'], autonomy),
    env: { HOOK_SECRET: SECRET },
  });
  return { url: `http://127.0.0.1:${port}/`, env, args: [...args, '--drain', '5'] };
}

it('serves a signed webhook, is the only instance on its data dir, reports its channels and drains on SIGTERM', async () => {
  const { url, env, args } = await setUp();
  daemons.vendor?.reply({
    kind: 'sse',
    frames: openaiFrames({ text: ['Hello from the daemon.'] }),
  });
  const daemon = await daemons.startDaemon(args, env);

  const response = await signedPost(url, SECRET, { text: 'hi', user: 'ci' });
  expect(response.status).toBe(200);
  expect(await response.json()).toMatchObject({ reply: 'Hello from the daemon.' });

  const second = await runBuiltCli(args, { env, timeoutMs: 60_000 });
  expect(second.code).toBe(1);
  expect(second.stderr).toMatch(/already serves this data dir/);

  // The daemon rewrites its status file every 2 s: wait for the one that counts the run.
  await vi.waitFor(
    async () => {
      const status = await runBuiltCli(['channels', 'status'], { env });
      expect(status.stdout).toMatch(/hook \(webhook\): running, 1 run\(s\)/);
    },
    { timeout: 120_000, interval: 500 },
  );
  const list = await runBuiltCli(['daemon', 'status', '--json'], { env });
  expect(JSON.parse(list.stdout)).toMatchObject({ running: true, pid: daemon.child.pid });

  daemon.child.kill('SIGTERM');
  expect(await daemon.exited).toBe(0);
  expect((await runBuiltCli(['daemon', 'status'], { env })).code).toBe(1);
  const log = await readFile(path.join(daemons.dataDir, 'logs', 'daemon.log'), 'utf8');
  expect(log).toMatch(/hook: run run_\w+ completed/);
  expect(log).toMatch(/stopped/);
}, 120_000);

it('a daemon killed with -9 mid-run is restarted and resumes without repeating the side effect', async () => {
  // Autonomous: memory/note runs without asking, and appends a line to today's thread.
  const { url, env, args } = await setUp('autonomous');
  daemons.vendor?.reply(
    {
      kind: 'sse',
      frames: openaiFrames({
        tools: [{ id: 'call_1', name: 'memory__note', args: ['{"text":"noted once"}'] }],
      }),
    },
    { kind: 'hang' },
  );
  const first = await daemons.startDaemon(args, env);
  // The sender waits on the response; the connection dies with the daemon.
  void signedPost(url, SECRET, { text: 'note this' }).catch(() => undefined);
  // The note is written, then the model's next turn hangs: the run is mid-way.
  for (let i = 0; i < 300 && (daemons.vendor?.requests.length ?? 0) < 2; i++)
    await new Promise((r) => setTimeout(r, 50));
  first.child.kill('SIGKILL');
  await first.exited;

  daemons.vendor?.reply({ kind: 'sse', frames: openaiFrames({ text: ['Noted.'] }) });
  const second = await daemons.startDaemon(args, env);
  for (let i = 0; i < 1200 && !/run run_\w+ completed/.test(second.output()); i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const threads = path.join(daemons.dataDir, 'workspace');
  const notes = await findNotes(threads);
  expect(notes.match(/noted once/g)).toHaveLength(1);
  expect(second.output()).toMatch(/resuming run run_\w+ interrupted by a stop/);
  second.child.kill('SIGTERM');
  expect(await second.exited).toBe(0);
}, 120_000);

async function findNotes(root: string): Promise<string> {
  let text = '';
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith('.md') && entry.parentPath.includes('daily')) {
      text += await readFile(path.join(entry.parentPath, entry.name), 'utf8');
    }
  }
  return text;
}
