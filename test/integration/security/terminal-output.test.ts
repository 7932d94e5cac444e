/**
 * Break 10 of issue 24 and its class: everything Pincer prints from a model, a tool or the
 * database is sanitized for the terminal. The BUILT cli runs against a vendor server on 127.0.0.1
 * whose model answers with OSC 52 (clipboard write), CSI (erase, cursor moves), carriage returns
 * and bidi overrides, and calls a tool whose name carries escapes; `pincer audit` then prints the
 * stored row.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitizeTerminalText } from '../../../src/main/cli/terminal-text.js';
import { startVendorServer, type VendorServer } from '../../fixtures/vendor-server.js';
import { openaiFrames } from '../../fixtures/vendor-streams.js';
import { runBuiltCli } from '../../support/cli-run.js';

const OSC52 = '\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07';
const CSI = '\x1b[2K\x1b[1A\x1b[31m';
/** Bytes a terminal would obey rather than show. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

let home = '';
let server: VendorServer;
beforeAll(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'pincer-term-'));
  server = await startVendorServer('/v1');
});
afterAll(async () => {
  await server.close();
  await rm(home, { recursive: true, force: true });
});

const pincer = (args: string[]) =>
  runBuiltCli(args, { env: { ...process.env, PINCER_HOME: path.join(home, 'data'), HOME: home } });
const model = ['--protocol', 'openai-compatible', '--endpoint', '', '--model', 'm'];
const modelArgs = () => model.map((arg) => arg || server.url);

describe('terminal output is sanitized', () => {
  it('shows, and does not obey, escapes in a streamed model reply (split across deltas too)', async () => {
    server.reply({
      kind: 'sse',
      frames: openaiFrames({
        reasoning: [`think ${CSI}`],
        // The OSC 52 sequence is split across two deltas: ESC in one, the rest in the next.
        text: ['Hi \x1b', OSC52.slice(1), ` ${CSI}done\rX\u202eevil\n`, 'tab\tok\u009b2J'],
      }),
    });
    const result = await pincer(['run', ...modelArgs(), 'hello']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toMatch(CONTROLS);
    expect(result.stdout).toBe(
      'Hi ␛]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==␇ ␛[2K␛[1A␛[31mdone␍X\\u202eevil\ntab\tok\\u009b2J\n',
    );
    // Pincer's own dimming of the reasoning is still there; the model's CSI is not obeyed.
    expect(result.stderr).toContain('\x1b[2mthink ␛[2K␛[1A␛[31m\x1b[0m');
  });

  it('--json stays valid JSON and loses nothing', async () => {
    const text = `a${OSC52}b\u009b\u202ec`;
    server.reply({ kind: 'sse', frames: openaiFrames({ text: [text] }) });
    const result = await pincer(['run', ...modelArgs(), '--json', 'hello']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toMatch(CONTROLS);
    const deltas = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((event) => event.type === 'model.delta');
    expect(deltas.map((event) => event.text).join('')).toBe(text);
  });

  it('a tool name with escapes is stored, and printed harmlessly by pincer audit and runs show', async () => {
    const name = `fs/read\x1b[2K\r\x1b]52;c;aWQ=\x07`;
    server.reply(
      {
        kind: 'sse',
        frames: openaiFrames({ tools: [{ id: 'call_1', name, args: ['{"path":"x"}'] }] }),
      },
      { kind: 'sse', frames: openaiFrames({ text: ['ok'] }) },
    );
    const run = await pincer(['run', ...modelArgs(), '--json', 'call a tool']);
    expect(run.code, run.stderr).toBe(0);
    const runId = JSON.parse(run.stdout.split('\n')[0] ?? '{}').run_id as string;

    const audit = await pincer(['audit', '--run', runId]);
    expect(audit.code, audit.stderr).toBe(0);
    expect(audit.stdout).toContain('fs/read␛[2K␍␛]52;c;aWQ=␇');
    expect(audit.stdout).not.toMatch(CONTROLS);

    const show = await pincer(['runs', 'show', runId]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).not.toMatch(CONTROLS);
    const list = await pincer(['runs', 'list']);
    expect(list.stdout).not.toMatch(CONTROLS);
  });
});

describe('data a program reads back', () => {
  it('a revealed secret comes out exact when piped', async () => {
    const env = {
      ...process.env,
      PINCER_HOME: path.join(home, 'secrets'),
      HOME: home,
      PINCER_KEYCHAIN: 'off',
      PINCER_VAULT_PASSPHRASE: 'terminal-test',
    };
    const value = 'pa\x1bss\u202eword';
    expect((await runBuiltCli(['secrets', 'set', 'ODD'], { env, input: value })).code).toBe(0);
    const revealed = await runBuiltCli(['secrets', 'get', 'ODD', '--reveal'], { env });
    expect(revealed).toMatchObject({ code: 0, stdout: `${value}\n` });
  });
});

describe('sanitizeTerminalText', () => {
  it('keeps text, tabs and newlines; shows every other control', () => {
    expect(sanitizeTerminalText('plain ünïcode 🦀\tand\nlines')).toBe(
      'plain ünïcode 🦀\tand\nlines',
    );
    expect(sanitizeTerminalText('a\r\nb\rc\x00\x08\x7f')).toBe('a\nb␍c␀␈␡');
    for (let code = 0; code < 0x2070; code++) {
      const char = String.fromCharCode(code);
      if (char === '\t' || char === '\n') continue;
      expect(sanitizeTerminalText(char)).not.toMatch(CONTROLS);
    }
  });
});
