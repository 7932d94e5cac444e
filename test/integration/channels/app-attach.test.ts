/**
 * The desktop app beside a running `pincer daemon` (the core side of the glue; Electron only
 * carries these calls): a real daemon process on a data directory, and the app attaching to its
 * agent through gateway.json instead of opening a second one. The window's calls reach the
 * daemon's store, an approval of a daemon run reaches the native dialog's source and is answered
 * there, the file manager opens only inside the daemon's workspace, the tray's pause is the
 * daemon's, and the app hears when the daemon goes away.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, expect, it } from 'vitest';
import type { RoutedApproval } from '../../../src/main/core/desktop/approval-dialog.js';
import { AgentActivity } from '../../../src/main/core/desktop/index.js';
import {
  type AttachedDesktop,
  attachToRunningAgent,
  bindTrayPause,
  connectGateway,
  readGatewayFile,
} from '../../../src/main/core/gateway/index.js';
import type { ChannelName } from '../../../src/shared/ipc.js';
import { openaiFrames } from '../../fixtures/vendor-streams.js';
import {
  DaemonProcesses,
  freePort,
  requireBuiltCli,
  until,
  webhookChannel,
} from '../../support/daemon-process.js';

const daemons = new DaemonProcesses();
let attached: AttachedDesktop | undefined;

beforeAll(requireBuiltCli);
afterEach(async () => {
  await attached?.close();
  attached = undefined;
  await daemons.cleanUp();
});

/** A daemon with a webhook channel (so there is something to pause), asking before writes. */
async function startDaemon() {
  const { args, env } = await daemons.setUp('pincer-app-attach', {
    channels: [webhookChannel(await freePort())],
    edit: (doc) => doc.setIn(['spec', 'identity', 'inline', 'autonomy'], 'supervised'),
    env: { HOOK_SECRET: 'app-attach-secret' },
  });
  return daemons.startDaemon([...args, '--drain', '5'], env);
}

const revealed: { path: string; isFolder: boolean }[] = [];
const attachOptions = {
  electronVersion: '99.0.0',
  reveal: async (target: { path: string; isFolder: boolean }) => {
    revealed.push(target);
  },
  desktop: () => undefined,
};

async function value<T>(channel: ChannelName, request: unknown): Promise<T> {
  const result = await attached?.route(channel, request);
  if (!result?.ok) throw new Error(`${channel}: ${JSON.stringify(result)}`);
  return result.value as T;
}

it('attaches to the daemon holding the data dir: its store, its approvals, its workspace, its pause', async () => {
  // Nothing holds a fresh data directory: the app starts its own agent.
  const empty = await mkdtemp(path.join(os.tmpdir(), 'pincer-app-attach-none-'));
  expect(await attachToRunningAgent(empty, attachOptions)).toBeUndefined();
  await rm(empty, { recursive: true, force: true });

  const daemon = await startDaemon();
  const { dataDir } = daemons;
  attached = await attachToRunningAgent(dataDir, attachOptions);
  if (!attached) throw new Error('the app did not attach to the daemon');
  expect(attached.pid).toBe(daemon.child.pid);

  // The desktop's own facts are answered here; the rest by the daemon.
  expect(await value('app.getInfo', {})).toMatchObject({
    electron: '99.0.0',
    transport: 'electron',
  });
  const desktop = await attached.route('desktop.get', {});
  expect(desktop).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  // A malformed call is refused by the same validation as everywhere.
  expect(await attached.route('sessions.create', { title: 7 })).toMatchObject({
    ok: false,
    error: { code: 'invalid_request' },
  });

  // A session made from the window is in the daemon's store, as another client sees it.
  const made = await value<{ id: string }>('sessions.create', { title: 'from the app' });
  const entry = readGatewayFile(dataDir);
  if (!entry) throw new Error('no gateway.json');
  const other = await connectGateway(`ws://127.0.0.1:${entry.port}/ipc`, entry.token);
  try {
    expect((await other.invoke('sessions.list', {})).map((s) => s.id)).toContain(made.id);

    // A write asks; the approval reaches the app's native-dialog source and is answered there.
    const asked: RoutedApproval[] = [];
    attached.shell.approvals.onRequest((approval) => asked.push(approval));
    daemons.vendor?.reply(
      {
        kind: 'sse',
        frames: openaiFrames({
          tools: [
            { id: 'call_1', name: 'fs__write', args: ['{"path":"from-app.md","content":"hi"}'] },
          ],
        }),
      },
      { kind: 'sse', frames: openaiFrames({ text: ['Written.'] }) },
    );
    await value('chat.send', { sessionId: made.id, text: 'write the file' });
    await until('the approval reached the app', () => asked.length === 1);
    expect(asked[0]?.call.name).toBe('fs/write');
    expect(attached.shell.approvals.pending().map((a) => a.id)).toEqual([asked[0]?.id]);
    await attached.shell.approvals.resolve(asked[0]?.id ?? '', 'approve', 'native dialog');
    const workspace = await value<{ path: string; canOpen: boolean }>('workspace.get', {});
    expect(workspace.canOpen).toBe(true);
    const written = path.join(workspace.path, 'from-app.md');
    await until('the daemon wrote the file', () => existsSync(written));
    expect(await readFile(written, 'utf8')).toBe('hi');
    await until('no approval left', () => attached?.shell.approvals.pending().length === 0);
    const audit = await other.invoke('approvals.list', {});
    expect(audit).toEqual([]);

    // The file manager opens inside the daemon's workspace only.
    expect(await value('workspace.open', { path: 'from-app.md' })).toEqual({ ok: true });
    expect(revealed).toEqual([{ path: written, isFolder: false }]);
    const out = await attached.route('workspace.open', { path: '../claw.yaml' });
    expect(out).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(revealed).toHaveLength(1);

    // The tray's pause is the daemon's, both ways.
    const activity = new AgentActivity();
    const unbind = bindTrayPause(activity, attached, (error) => {
      throw error;
    });
    expect(activity.paused).toBe(false);
    activity.setPaused(true);
    await until(
      'the daemon paused',
      async () => (await other.invoke('background.held', {})).paused,
    );
    await other.invoke('background.setPaused', { paused: false });
    await until('the tray resumed', () => !activity.paused);
    unbind();
  } finally {
    other.close();
  }

  // The daemon stops: the app hears it (and starts again on its own).
  let lost = false;
  attached.onLost(() => {
    lost = true;
  });
  daemon.child.kill('SIGTERM');
  expect(await daemon.exited).toBe(0);
  await until('the app heard the daemon go', () => lost);
}, 120_000);
