/**
 * `pincer daemon --ckp-http` as a real child process (the built CLI): CKP over HTTP on 127.0.0.1
 * served over the daemon's own agent beside its webhook channel, with the bearer token from the
 * environment or kept in the data dir (never printed, logged or in the status). A peer's
 * `claw.shutdown` leaves the daemon serving; SIGTERM drains CKP calls with the rest.
 */
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { openaiFrames } from '../../fixtures/vendor-streams.js';
import { CkpPeer } from '../../support/ckp-peer.js';
import { runBuiltCli } from '../../support/cli-run.js';
import {
  DaemonProcesses,
  type Env,
  freePort,
  listenerUrl,
  requireBuiltCli,
  signedPost,
  webhookChannel,
} from '../../support/daemon-process.js';

const SECRET = 'daemon-hook-secret';
const TOKEN = 'ckp-token-from-the-environment';
const daemons = new DaemonProcesses();

beforeAll(requireBuiltCli);
afterEach(() => daemons.cleanUp());

async function setUp(ckpArgs: string[]) {
  const port = await freePort();
  const { env, args } = await daemons.setUp('pincer-daemon-ckp', {
    channels: [webhookChannel(port)],
    env: { HOOK_SECRET: SECRET, CKP_TOKEN: TOKEN },
  });
  return {
    hook: `http://127.0.0.1:${port}/`,
    env,
    args: [...args, '--drain', '2', '--ckp-http', '0', ...ckpArgs],
  };
}

const startDaemon = (args: string[], env: Env) => daemons.spawn(args, env);

/** The CKP URL the running daemon reports. */
async function ckpUrl(env: Env, pid?: number): Promise<string> {
  const url = await listenerUrl(env, pid);
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  return url;
}

function httpPeer(url: string, token: string): CkpPeer {
  const peer: CkpPeer = new CkpPeer((frame) => {
    void fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: frame,
    })
      .then(async (response) => (response.status === 200 ? response.text() : ''))
      .then((text) => {
        if (text) peer.receive(text);
      });
  });
  return peer;
}

it('serves CKP over its own agent: policy applies, the token is required, claw.shutdown leaves the daemon serving, SIGTERM drains', async () => {
  const { hook, env, args } = await setUp(['--ckp-token-env', 'CKP_TOKEN']);
  const daemon = startDaemon(args, env);
  const url = await ckpUrl(env, daemon.child.pid);

  // Refused without the token, or with another one.
  const bare = await fetch(url, { method: 'POST', body: '{}' });
  expect(bare.status).toBe(401);
  const wrong = await fetch(url, {
    method: 'POST',
    body: '{}',
    headers: { authorization: 'Bearer not-the-token' },
  });
  expect(wrong.status).toBe(401);

  const peer = httpPeer(url, TOKEN);
  expect((await peer.initialize({}, 'pincer')).result).toMatchObject({
    agentInfo: { name: expect.any(String) },
  });
  // Under the manifest's policy: a read-only tool is allowed, a program launcher denied.
  const listed = await peer.call('fs/list', { path: '.' }, 'list-1');
  expect(listed.error).toBeUndefined();
  expect(listed.result).toMatchObject({ isError: false });
  const denied = await peer.call('sys/exec', { command: 'sudo', args: ['ls', '-l'] }, 'sudo-1');
  expect(denied.error).toMatchObject({
    code: -32011,
    data: { rule_id: 'deny-program-launchers' },
  });

  // A peer's shutdown stops serving over CKP, not the daemon.
  expect((await peer.request('claw.shutdown', { timeout_ms: 1000 })).result).toEqual({
    drained: true,
  });
  expect((await peer.request('claw.status', {})).result).toMatchObject({ state: 'STOPPED' });
  daemons.vendor?.reply({ kind: 'sse', frames: openaiFrames({ text: ['Still here.'] }) });
  const answered = await signedPost(hook, SECRET, { text: 'still there?', user: 'ci' });
  expect(await answered.json()).toMatchObject({ reply: 'Still here.' });
  expect((await runBuiltCli(['daemon', 'status'], { env })).code).toBe(0);
  // A second initialize serves the same agent again.
  expect((await peer.initialize({}, 'pincer')).result).toMatchObject({
    conformanceLevel: expect.any(String),
  });
  expect((await peer.call('fs/list', { path: '.' }, 'list-2')).error).toBeUndefined();

  // A write waits for an approval nobody gives: in flight when SIGTERM comes. It is answered
  // (cancelled after the drain time) before the daemon ends, and the listener goes with it.
  const held = peer.call('fs/write', { path: 'held.md', content: 'x' }, 'held-1');
  await expect
    .poll(async () => (await runBuiltCli(['audit', '--json'], { env })).stdout, {
      timeout: 60_000,
      interval: 250,
    })
    .toContain('approval_requested');
  daemon.child.kill('SIGTERM');
  expect((await held).error).toMatchObject({ data: { outcome: 'cancelled' } });
  expect(await daemon.exited).toBe(1); // not drained: the held call was cancelled
  await expect(fetch(url, { method: 'POST', body: '{}' })).rejects.toThrow();

  const log = await readFile(path.join(daemons.dataDir, 'logs', 'daemon.log'), 'utf8');
  expect(log).toMatch(/CKP \(http\) on http:\/\/127\.0\.0\.1:\d+\//);
  expect(log).toMatch(/ckp: STOPPING -> STOPPED \(drain time over: calls cancelled\)/);
  expect(log).toMatch(/stopped/);
  expect(log).not.toContain(TOKEN);
  expect(daemon.output()).not.toContain(TOKEN);
}, 180_000);

it('without --ckp-token-env keeps a token in the data dir (0600), reused on restart and never shown', async () => {
  const { env, args } = await setUp([]);
  const first = startDaemon(args, env);
  const url = await ckpUrl(env, first.child.pid);
  const file = path.join(daemons.dataDir, 'daemon', 'ckp-token');
  const token = (await readFile(file, 'utf8')).trim();
  expect(token.length).toBeGreaterThanOrEqual(32);
  if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);

  const peer = httpPeer(url, token);
  expect((await peer.initialize({}, 'pincer')).error).toBeUndefined();
  const status = await runBuiltCli(['daemon', 'status'], { env });
  expect(status.stdout).toMatch(/CKP \(http\): http:\/\/127\.0\.0\.1:\d+\//);
  expect(status.stdout).not.toContain(token);
  const statusFile = await readFile(path.join(daemons.dataDir, 'daemon', 'status.json'), 'utf8');
  expect(statusFile).not.toContain(token);

  first.child.kill('SIGTERM');
  expect(await first.exited).toBe(0);
  const second = startDaemon(args, env);
  const again = await ckpUrl(env, second.child.pid);
  expect((await readFile(file, 'utf8')).trim()).toBe(token);
  expect((await httpPeer(again, token).initialize({}, 'pincer')).error).toBeUndefined();
  second.child.kill('SIGTERM');
  expect(await second.exited).toBe(0);

  const log = await readFile(path.join(daemons.dataDir, 'logs', 'daemon.log'), 'utf8');
  expect(log).not.toContain(token);
  expect(first.output() + second.output()).not.toContain(token);
}, 180_000);
