/**
 * `pincer chat` in line mode beside a running `pincer daemon` (#21): a real daemon process (the
 * built CLI, a model server on 127.0.0.1, a signed webhook channel) and `pincer chat --plain` as a
 * child with piped stdin and stdout. The chat attaches to the daemon's agent instead of opening a
 * second one: its reply and session are the daemon's, a write of its own run is asked inline and
 * written by the daemon, and an approval of a webhook-triggered run is announced in the chat and
 * answered with /approve (one answered elsewhere first is said so), and Ctrl+C cancels a reply on
 * the daemon. Beside a daemon started with --no-attach, line mode is refused.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { connectGateway, readGatewayFile } from '../../../src/main/core/gateway/index.js';
import { openaiFrames } from '../../fixtures/vendor-streams.js';
import { builtCli } from '../../support/cli-run.js';
import {
  DaemonProcesses,
  freePort,
  requireBuiltCli,
  signedPost,
  until,
  webhookChannel,
} from '../../support/daemon-process.js';

const SECRET = 'chat-attach-secret';
const daemons = new DaemonProcesses();

beforeAll(requireBuiltCli);
afterEach(() => daemons.cleanUp());

/** A supervised daemon (writes ask) with a webhook channel. */
async function startDaemon(extra: string[] = []) {
  const port = await freePort();
  const { args, env } = await daemons.setUp('pincer-chat-attach', {
    channels: [webhookChannel(port)],
    edit: (doc) => doc.setIn(['spec', 'identity', 'inline', 'autonomy'], 'supervised'),
    env: { HOOK_SECRET: SECRET },
  });
  const daemon = await daemons.startDaemon([...args, '--drain', '5', ...extra], env);
  return { ...daemon, env, hook: `http://127.0.0.1:${port}/` };
}

/** `pincer chat --plain` on the daemon's data directory, stdin and stdout piped. */
function openChat(env: Record<string, string | undefined>) {
  const child = daemons.track(
    spawn(process.execPath, [builtCli, 'chat', '--plain'], {
      env: env as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    }),
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return {
    type: (line: string) => child.stdin.write(`${line}\n`),
    stdout: () => stdout,
    stderr: () => stderr,
    all: () => `--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`,
    end: () => child.stdin.end(),
    interrupt: () => child.kill('SIGINT'),
    exited,
  };
}

const writeCall = (id: string, file: string, content: string) => ({
  kind: 'sse' as const,
  frames: openaiFrames({
    tools: [{ id, name: 'fs__write', args: [JSON.stringify({ path: file, content })] }],
  }),
});
const text = (words: string) => ({ kind: 'sse' as const, frames: openaiFrames({ text: [words] }) });

it('attaches to the daemon: its replies and store, its own approvals inline, the webhook run answered with /approve', async () => {
  const daemon = await startDaemon();
  const entry = readGatewayFile(daemons.dataDir);
  if (!entry) throw new Error('no gateway.json');
  const chat = openChat(daemon.env);

  await until('the banner', () => chat.stderr().includes('Ctrl+D or /exit quits'), chat.all);
  expect(chat.stderr()).toContain(
    `Pincer chat · attached to http://127.0.0.1:${entry.port} (agent pid ${daemon.child.pid}) · model openai-compatible/m · session (new)`,
  );

  // A line is a run of the daemon's agent: its reply streams here, its session is in its store.
  daemons.vendor?.reply(text('Hello from the daemon.'));
  chat.type('hi');
  await until('the reply', () => chat.stdout().includes('Hello from the daemon.'), chat.all);
  const sessionId = /session: (ses_[A-Za-z0-9_-]+)/.exec(chat.stderr())?.[1];
  if (!sessionId) throw new Error(`no session line:\n${chat.all()}`);
  const link = await connectGateway(`ws://127.0.0.1:${entry.port}/ipc`, entry.token);
  try {
    expect((await link.invoke('sessions.list', {})).map((s) => s.id)).toContain(sessionId);
    const workspace = (await link.invoke('workspace.get', {})).path;

    // A write of this chat's own run is asked inline, as the local chat asks, and answered y.
    daemons.vendor?.reply(writeCall('call_1', 'from-chat.md', 'chat'), text('Written.'));
    chat.type('write the file');
    await until('the inline question', () => chat.stderr().includes('[y]es, [n]o'), chat.all);
    expect(chat.stderr()).toMatch(
      /Approve fs\/write \{"path":"from-chat\.md","content":"chat"\}\?/,
    );
    chat.type('y');
    await until('the reply after the write', () => chat.stdout().includes('Written.'), chat.all);
    expect(await readFile(path.join(workspace, 'from-chat.md'), 'utf8')).toBe('chat');
    // Same conversation: the second message went to the session the first one opened.
    expect((await link.invoke('sessions.list', {})).map((s) => s.id)).toEqual([sessionId]);

    // A webhook's run is the daemon's own: its approval is announced here and answered by number.
    daemons.vendor?.reply(writeCall('call_2', 'from-hook.md', 'hook'), text('Hook done.'));
    const posted = signedPost(daemon.hook, SECRET, { text: 'write from the hook', user: 'ci' });
    // Awaited below; a failure before that is the test's, not an unhandled rejection.
    posted.catch(() => undefined);
    await until('the announcement', () => chat.stderr().includes('[approval 1]'), chat.all);
    expect(chat.stderr()).toMatch(
      /\[approval 1\] fs\/write \(create \S*from-hook\.md\) · from webhook hook \(ci\) · \/approve 1, \/deny 1/,
    );
    chat.type('/approvals');
    await until('the list', () => chat.stderr().split('[approval 1]').length > 2, chat.all);
    chat.type('/approve 1');
    await until('the answer', () => chat.stderr().includes('approval 1: approved'), chat.all);
    const response = await posted;
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ reply: 'Hook done.' });
    expect(await readFile(path.join(workspace, 'from-hook.md'), 'utf8')).toBe('hook');
    expect(await link.invoke('approvals.list', {})).toEqual([]);

    // Another surface answers first (here the test's own client): the chat says so, and its
    // late answer loses.
    daemons.vendor?.reply(writeCall('call_3', 'second.md', 'again'), text('Denied, fine.'));
    const second = signedPost(daemon.hook, SECRET, { text: 'write again', user: 'ci' });
    second.catch(() => undefined);
    await until('the second announcement', () => chat.stderr().includes('[approval 2]'), chat.all);
    const [waiting] = await link.invoke('approvals.list', {});
    await link.invoke('approvals.resolve', { approvalId: waiting?.id ?? '', verdict: 'deny' });
    await until(
      'the answer from elsewhere announced',
      () => chat.stderr().includes('[approval 2 answered elsewhere: denied by'),
      chat.all,
    );
    chat.type('/approve 2');
    await until(
      'the late answer refused',
      () => chat.stderr().includes('approval 2 was already answered (denied by'),
      chat.all,
    );
    expect((await second).status).toBe(200);
    expect(existsSync(path.join(workspace, 'second.md'))).toBe(false);

    // Ctrl+C (piped: SIGINT) cancels the reply in progress on the daemon, and the chat goes on.
    const asked = daemons.vendor?.requests.length ?? 0;
    daemons.vendor?.reply({ kind: 'hang' });
    chat.type('take your time');
    await until('the model asked', () => (daemons.vendor?.requests.length ?? 0) > asked, chat.all);
    chat.interrupt();
    await until('the reply cancelled', () => chat.stdout().includes('[cancelled]'), chat.all);
    chat.type('/help');
    await until('the help', () => chat.stderr().includes('/deny N [REASON]'), chat.all);
  } finally {
    link.close();
  }

  chat.type('/exit');
  expect(await chat.exited).toBe(0);
  // The chat leaves the daemon's agent running.
  expect(daemon.child.exitCode).toBeNull();
  daemon.child.kill('SIGTERM');
  expect(await daemon.exited).toBe(0);
}, 120_000);

it('beside a daemon started with --no-attach, line mode is refused saying why', async () => {
  const daemon = await startDaemon(['--no-attach']);
  const chat = openChat(daemon.env);
  chat.end();
  expect(await chat.exited).toBe(1);
  expect(chat.stderr().replace(/\s+/g, ' ')).toContain(
    `pincer chat: another Pincer agent (pid ${daemon.child.pid}: the daemon or the desktop app) holds this data directory and no gateway of it answers`,
  );
  daemon.child.kill('SIGTERM');
  expect(await daemon.exited).toBe(0);
}, 120_000);
