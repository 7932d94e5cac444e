/**
 * `pincer daemon` serves the UI's IPC contract for attaching: a real daemon process (the built
 * CLI, a model server on 127.0.0.1) writes gateway.json, a WebSocket client with its token is
 * welcomed and calls the typed contract on the daemon's own agent, `pincer tui` in a
 * pseudo-terminal attaches to it instead of being refused, and the file goes when it stops.
 * With --no-attach there is no file, and the dashboard is refused with a message saying why.
 */
import { existsSync, statSync } from 'node:fs';
import { stripVTControlCharacters } from 'node:util';
import { spawn as spawnPty } from '@lydell/node-pty';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { gatewayFilePath } from '../../../src/main/core/gateway/gateway-file.js';
import { connectGateway, readGatewayFile } from '../../../src/main/core/gateway/index.js';
import { WireClose } from '../../../src/shared/wire.js';
import { builtCli } from '../../support/cli-run.js';
import { DaemonProcesses, requireBuiltCli, until } from '../../support/daemon-process.js';

const daemons = new DaemonProcesses();
beforeAll(requireBuiltCli);
afterEach(() => daemons.cleanUp());

async function startDaemon(extra: string[] = []) {
  const { args, env } = await daemons.setUp('pincer-daemon-attach');
  const daemon = await daemons.startDaemon([...args, '--drain', '5', ...extra], env);
  return { ...daemon, env };
}

/** `pincer tui` in a pseudo-terminal on the daemon's data directory. */
function openTui(env: Record<string, string | undefined>) {
  const term = spawnPty(process.execPath, [builtCli, 'tui'], {
    name: 'xterm-256color',
    cols: 100,
    rows: 30,
    cwd: daemons.dataDir,
    env: { ...env, TERM: 'xterm-256color', FORCE_COLOR: '0', CI: 'true' },
  });
  let raw = '';
  term.onData((data) => {
    raw += data;
  });
  const exited = new Promise<number>((resolve) => term.onExit(({ exitCode }) => resolve(exitCode)));
  return { term, exited, screen: () => stripVTControlCharacters(raw) };
}

describe('pincer daemon: the attach gateway', { timeout: 120_000 }, () => {
  it('names its gateway in gateway.json, serves the typed contract to the token, and removes the file on stop', async () => {
    const daemon = await startDaemon();
    const entry = readGatewayFile(daemons.dataDir);
    expect(entry?.pid).toBe(daemon.child.pid);
    if (!entry) throw new Error('no gateway.json');
    if (process.platform !== 'win32') {
      expect(statSync(gatewayFilePath(daemons.dataDir)).mode & 0o777).toBe(0o600);
    }
    // The token is never printed: only the file carries it.
    expect(daemon.output()).not.toContain(entry.token);

    // A wrong token is refused before any call.
    const refused = await new Promise<number>((resolve, reject) => {
      const socket = new WebSocket(`ws://127.0.0.1:${entry.port}/ipc`);
      socket.on('open', () => socket.send(JSON.stringify({ type: 'hello', token: 'not-it' })));
      socket.on('close', (code) => resolve(code));
      socket.on('error', reject);
    });
    expect(refused).toBe(WireClose.unauthorized);

    // The right token: welcomed, and the contract answers from the daemon's own agent.
    const link = await connectGateway(`ws://127.0.0.1:${entry.port}/ipc`, entry.token);
    try {
      expect(await link.invoke('sessions.list', {})).toEqual([]);
      const created = await link.invoke('sessions.create', { title: 'from a client' });
      const listed = await link.invoke('sessions.list', {});
      expect(listed.map((session) => session.id)).toContain(created.id);
    } finally {
      link.close();
    }

    // The dashboard attaches to the daemon instead of refusing beside its instance lock.
    const tui = openTui(daemon.env);
    try {
      await until(
        'the dashboard attached',
        () => tui.screen().includes(`attached 127.0.0.1:${entry.port}`),
        () => tui.screen().slice(-3000),
      );
      await until(
        'the model shown',
        () => tui.screen().includes('Model: '),
        () => tui.screen().slice(-3000),
      );
      tui.term.write('\x03');
      expect(await tui.exited).toBe(0);
    } finally {
      tui.term.kill();
    }

    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    expect(existsSync(gatewayFilePath(daemons.dataDir))).toBe(false);
  });

  it('with --no-attach serves no gateway, and the dashboard is refused saying why', async () => {
    const daemon = await startDaemon(['--no-attach']);
    expect(existsSync(gatewayFilePath(daemons.dataDir))).toBe(false);
    const tui = openTui(daemon.env);
    try {
      const code = await tui.exited;
      expect(code).not.toBe(0);
      expect(tui.screen().replace(/\s+/g, ' ')).toContain(
        `another Pincer agent (pid ${daemon.child.pid}: the daemon or the desktop app) holds this data directory and no gateway of it answers`,
      );
    } finally {
      tui.term.kill();
    }
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
  });
});
