/**
 * `pincer tui` as a person meets it: the built CLI in a pseudo-terminal, attached to a running
 * gateway (a real assistant with the scripted model), typed into, answered, and left with Ctrl+C.
 * Needs `npm run build` (dist/cli.js), as the other CLI integration tests do.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { spawn } from '@lydell/node-pty';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockFileOf } from '../../../src/main/core/daemon/instance-lock.js';
import { writeGatewayFile } from '../../../src/main/core/gateway/index.js';
import { type Gateway, startAssistantGateway } from '../../../src/main/core/gateway/server.js';
import {
  APP_DIR,
  type AssistantFixture,
  scriptedAssistant,
} from '../../support/assistant-harness.js';

const builtCli = path.join(APP_DIR, 'dist', 'cli.js');
let fixture: AssistantFixture;
let gateway: Gateway;
let root = '';

beforeAll(async () => {
  if (!existsSync(builtCli)) throw new Error('dist/cli.js is missing: run `npm run build` first');
  root = await mkdtemp(path.join(os.tmpdir(), 'pincer-tui-pty-'));
  await mkdir(path.join(root, 'renderer'));
  await writeFile(path.join(root, 'renderer', 'index.html'), '<!doctype html><title>ui</title>');
  fixture = await scriptedAssistant({ delayMs: 5 });
  gateway = await startAssistantGateway({
    assistant: fixture.assistant,
    rendererDir: path.join(root, 'renderer'),
  });
});
afterAll(async () => {
  await gateway?.close();
  await fixture?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('pincer tui in a pseudo-terminal', { timeout: 120_000 }, () => {
  it('attaches to the gateway, chats, shows the approval, and quits on Ctrl+C', async () => {
    const term = spawn(process.execPath, [builtCli, 'tui', '--attach', gateway.openUrl], {
      name: 'xterm-256color',
      cols: 100,
      rows: 30,
      cwd: root,
      // An empty data dir of its own: attaching must not need the gateway's.
      // CI set as build machines set it: Ink would then draw only its last frame, on exit.
      env: { ...process.env, PINCER_HOME: path.join(root, 'home'), FORCE_COLOR: '0', CI: 'true' },
    });
    let raw = '';
    term.onData((data) => {
      raw += data;
    });
    const exited = new Promise<number>((resolve) =>
      term.onExit(({ exitCode }) => resolve(exitCode)),
    );
    const screen = () => stripVTControlCharacters(raw);
    const waitFor = async (text: string) => {
      const deadline = Date.now() + 45_000;
      while (!screen().includes(text)) {
        if (Date.now() > deadline)
          throw new Error(`no "${text}" on the terminal:\n${screen().slice(-3000)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const press = async (keys: string) => {
      term.write(keys);
      await new Promise((resolve) => setTimeout(resolve, 100));
    };
    try {
      await waitFor('attached 127.0.0.1');
      // The model's name arrives by a call made after the input hooks put the terminal in raw
      // mode: keys typed before that would be cooked by the terminal into one line.
      await waitFor('Model: scripted');
      // The status facts the gateway's contract carries: the model's window and the sandbox.
      await waitFor('Tokens: 0/8,192');
      await waitFor('Sandbox: ');
      expect(raw).toContain('\x1b[?1049h'); // the alternate screen: the shell's scrollback stays
      await press('hello');
      await press('\r');
      await waitFor('Hello from Pincer');
      await waitFor('const answer = 42;');
      await press('write it down');
      await press('\r');
      await waitFor('Approve?');
      await press('y');
      await waitFor('Done: the tool said');
      await press('\x03'); // idle: Ctrl+C leaves
      expect(await exited).toBe(0);
      expect(raw.slice(raw.lastIndexOf('\x1b[?1049'))).toContain('\x1b[?1049l');
      // The gateway's assistant did the work: the session lives there.
      const sessions = await fixture.assistant.listSessions();
      expect(sessions.length).toBe(1);
    } finally {
      term.kill();
    }
  });

  it('finds the gateway serving its data directory by itself (gateway.json), and says so', async () => {
    const home = path.join(root, 'shared-home');
    await mkdir(home, { recursive: true });
    // What `pincer gateway` writes for this data directory (this process stands in for it).
    const remove = writeGatewayFile(home, {
      pid: process.pid,
      port: gateway.port,
      token: gateway.token,
    });
    const term = spawn(process.execPath, [builtCli, 'tui'], {
      name: 'xterm-256color',
      cols: 80,
      rows: 24,
      cwd: root,
      env: { ...process.env, PINCER_HOME: home, FORCE_COLOR: '0', CI: 'true' },
    });
    let raw = '';
    term.onData((data) => {
      raw += data;
    });
    const exited = new Promise<number>((resolve) =>
      term.onExit(({ exitCode }) => resolve(exitCode)),
    );
    try {
      const deadline = Date.now() + 45_000;
      while (!stripVTControlCharacters(raw).includes(`attached 127.0.0.1:${gateway.port}`)) {
        if (Date.now() > deadline)
          throw new Error(`not attached:\n${stripVTControlCharacters(raw)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      term.write('\x03');
      expect(await exited).toBe(0);
    } finally {
      term.kill();
      remove();
    }
  });

  it('refuses to start a second agent beside a daemon that offers no gateway', async () => {
    const home = path.join(root, 'daemon-home');
    // What a running daemon (or the desktop app) holds: the instance lock, by a living pid.
    await mkdir(path.dirname(lockFileOf(home)), { recursive: true });
    await writeFile(lockFileOf(home), `${process.pid}\n`);
    const term = spawn(process.execPath, [builtCli, 'tui'], {
      name: 'xterm-256color',
      cols: 80,
      rows: 24,
      cwd: root,
      env: { ...process.env, PINCER_HOME: home, FORCE_COLOR: '0', CI: 'true' },
    });
    let raw = '';
    term.onData((data) => {
      raw += data;
    });
    try {
      const code = await new Promise<number>((resolve) =>
        term.onExit(({ exitCode }) => resolve(exitCode)),
      );
      expect(code).not.toBe(0);
      expect(stripVTControlCharacters(raw)).toContain(
        `another Pincer agent (pid ${process.pid}: the daemon or the desktop app)`,
      );
      expect(existsSync(path.join(home, 'profiles'))).toBe(false); // no store opened
    } finally {
      term.kill();
    }
  });

  it('pincer chat opens the dashboard on a terminal that fits it, line mode on a smaller one', async () => {
    const home = path.join(root, 'chat-home');
    await mkdir(home, { recursive: true });
    const remove = writeGatewayFile(home, {
      pid: process.pid,
      port: gateway.port,
      token: gateway.token,
    });
    const open = (cols: number, rows: number) => {
      const term = spawn(process.execPath, [builtCli, 'chat'], {
        name: 'xterm-256color',
        cols,
        rows,
        cwd: root,
        env: { ...process.env, PINCER_HOME: home, FORCE_COLOR: '0', CI: 'true' },
      });
      let raw = '';
      term.onData((data) => {
        raw += data;
      });
      const exited = new Promise<number>((resolve) =>
        term.onExit(({ exitCode }) => resolve(exitCode)),
      );
      return { term, exited, raw: () => raw };
    };
    const fits = open(80, 24);
    try {
      const deadline = Date.now() + 45_000;
      while (!stripVTControlCharacters(fits.raw()).includes('attached 127.0.0.1')) {
        if (Date.now() > deadline) throw new Error(`no dashboard:\n${fits.raw()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(fits.raw()).toContain('\x1b[?1049h');
      fits.term.write('\x03');
      expect(await fits.exited).toBe(0);
    } finally {
      fits.term.kill();
    }
    const small = open(50, 12);
    try {
      // Line mode asks for its first line (or says why it cannot start); never the dashboard.
      const deadline = Date.now() + 45_000;
      while (!/> $|pincer chat:/m.test(stripVTControlCharacters(small.raw()))) {
        if (Date.now() > deadline) throw new Error(`no line mode:\n${small.raw()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(small.raw()).not.toContain('\x1b[?1049h');
      expect(stripVTControlCharacters(small.raw())).not.toContain('[F1]Help');
    } finally {
      small.term.kill();
      remove();
    }
  });
});
