/**
 * `pincer chat` on a pseudo-terminal (util-linux `script`), the built CLI against a real
 * OpenAI-compatible server on 127.0.0.1: the banner names the model and the session, and the
 * slash commands list, switch and start conversations.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionBook } from '../../../src/main/core/models/connections.js';
import { openDatabase, profileDatabasePath } from '../../../src/main/core/storage/index.js';
import { buildTinyGguf } from '../../fixtures/tiny-gguf.js';
import { startVendorServer, type VendorServer } from '../../fixtures/vendor-server.js';
import { openaiFrames } from '../../fixtures/vendor-streams.js';
import { builtCli } from '../../support/cli-run.js';

const skipReason = !existsSync('/usr/bin/script')
  ? 'no util-linux script(1) for a pseudo-terminal'
  : !existsSync(builtCli)
    ? 'CLI not built: run `npm run build`'
    : null;
if (skipReason) console.warn(`[chat-commands] skipping: ${skipReason}`);

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[A-Za-z]`, 'g');

/** A chat on a pty: `send` types a line, `until` waits for text in everything printed. */
function ptyChat(args: string[], env: NodeJS.ProcessEnv) {
  const line = [process.execPath, builtCli, ...args].map((a) => `'${a}'`).join(' ');
  const child: ChildProcessWithoutNullStreams = spawn('script', ['-qfec', line, '/dev/null'], {
    env,
  });
  let output = '';
  const waiters = new Set<() => void>();
  const onData = (data: Buffer) => {
    // The terminal's colours and cursor moves are not what the test reads.
    output += data.toString('utf8').replace(ANSI, '').replace(/\r/g, '');
    for (const check of waiters) check();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let mark = 0;
  return {
    send(text: string) {
      mark = output.length;
      child.stdin.write(`${text}\r`);
    },
    /** Waits until `pattern` appears in what was printed since the last `send`. */
    until(pattern: RegExp): Promise<string> {
      return new Promise((resolve, reject) => {
        // Catches a hang, and says where it hung.
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no ${pattern} in:\n${output.slice(mark)}`));
        }, 30_000);
        const check = () => {
          const since = output.slice(mark);
          if (pattern.test(since)) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve(since);
          }
        };
        waiters.add(check);
        check();
      });
    },
    all: () => output,
    exited,
    kill: () => child.kill('SIGKILL'),
  };
}

describe.skipIf(skipReason !== null)('pincer chat slash commands on a terminal', () => {
  let home = '';
  let server: VendorServer;
  beforeAll(async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'pincer-chat-pty-'));
    server = await startVendorServer();
    await mkdir(path.join(home, 'models'), { recursive: true });
    await writeFile(path.join(home, 'models', 'tiny.gguf'), buildTinyGguf());
    // A provider added from the app earlier: its models are in /models too.
    const db = openDatabase(profileDatabasePath(home));
    try {
      new ConnectionBook(db).save({
        name: 'lab',
        kind: 'openai-compatible',
        endpoint: server.url,
        keyName: null,
        models: ['llama3'],
        takesImages: false,
      });
    } finally {
      db.close();
    }
  });
  afterAll(async () => {
    await server?.close();
    await rm(home, { recursive: true, force: true });
  });

  it('prints model and session, lists and switches models, lists and starts conversations', async () => {
    const chat = ptyChat(
      [
        'chat',
        '--plain',
        '--protocol',
        'openai',
        '--endpoint',
        server.url,
        '--model',
        'm',
        '--tools',
        '',
      ],
      { ...process.env, PINCER_HOME: home, PINCER_KEYCHAIN: 'off', TERM: 'dumb' },
    );
    try {
      const banner = await chat.until(/> $/m);
      expect(banner).toContain('Pincer chat · model openai-compatible/m · session (new)');

      chat.send('/help');
      expect(await chat.until(/\/exit.*\n[\s\S]*> /)).toMatch(/\/models +every model/);

      chat.send('/models');
      const listed = await chat.until(/launch[\s\S]*> /);
      expect(listed).toMatch(/^ {2}local:tiny\.gguf +\(This computer: tiny\.gguf\)/m);
      expect(listed).toMatch(/^ {2}connection:lab:llama3 +\(lab: llama3\)/m);
      expect(listed).toMatch(/^\* launch +\(Started with: openai-compatible\/m\)/m);

      server.reply({ kind: 'sse', frames: openaiFrames({ text: ['hello from m'] }) });
      chat.send('hi');
      const first = await chat.until(/hello from m[\s\S]*> /);
      const sessionId = /session: (ses_[A-Za-z0-9_-]+)/.exec(first)?.[1];
      expect(sessionId).toBeDefined();

      chat.send('/model llama3');
      expect(await chat.until(/model: .*\n/)).toContain('model: openai-compatible/llama3');
      server.reply({ kind: 'sse', frames: openaiFrames({ text: ['hello from llama'] }) });
      chat.send('and you?');
      await chat.until(/hello from llama[\s\S]*> /);
      const asked = server.requests.at(-1)?.body as { model: string; messages: unknown[] };
      expect(asked.model).toBe('llama3');
      // Same conversation: the first exchange went along.
      expect(JSON.stringify(asked.messages)).toContain('hello from m');

      chat.send('/sessions');
      expect(await chat.until(/ses_[\s\S]*> /)).toContain(`* ${sessionId}`);

      chat.send('/model nonsense');
      expect(await chat.until(/no model.*\n/)).toContain('no model "nonsense": /models lists them');

      chat.send('/new');
      expect(await chat.until(/new conversation/)).toBeTruthy();
      chat.send('/model tiny.gguf');
      expect(await chat.until(/model: .*\n/)).toContain('model: local/tiny.gguf');
      chat.send('/frobnicate');
      expect(await chat.until(/unknown command.*\n/)).toContain(
        'unknown command /frobnicate: /help lists them',
      );

      chat.send('/exit');
      expect(await chat.exited).toBe(0);
    } catch (error) {
      chat.kill();
      throw new Error(`${String(error)}\n--- terminal ---\n${chat.all()}`);
    }
  }, 120_000);
});
