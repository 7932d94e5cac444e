/**
 * `pincer run --protocol ...` as a user runs it: the BUILT cli in a child process, talking to a
 * vendor server on 127.0.0.1. The key travels only through an environment variable.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVendorServer, type VendorServer } from '../../fixtures/vendor-server.js';
import {
  anthropicFrames,
  geminiFrames,
  openaiFrames,
  responsesFrames,
  type Turn,
} from '../../fixtures/vendor-streams.js';
import { runBuiltCli } from '../../support/cli-run.js';

const KEY = 'cli-secret-key-98765';
let home = '';
beforeAll(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'pincer-cli-run-'));
});
afterAll(() => rm(home, { recursive: true, force: true }));

const pincer = (args: string[], env: Record<string, string> = {}) =>
  runBuiltCli(args, { env: { ...process.env, PINCER_HOME: home, ...env } });

const CASES: [string, string, (turn: Turn) => string[]][] = [
  ['openai-compatible', '/v1', openaiFrames],
  ['responses', '/v1', responsesFrames],
  ['anthropic', '/v1', anthropicFrames],
  ['gemini', '/v1beta', geminiFrames],
];

describe.each(CASES)('pincer run --protocol %s', (protocol, prefix, frames) => {
  let server: VendorServer;
  beforeAll(async () => {
    server = await startVendorServer(prefix);
  });
  afterAll(() => server.close());

  it('prints the reply as it streams', async () => {
    server.reply({ kind: 'sse', frames: frames({ text: ['Hello ', 'from ', protocol] }) });
    const result = await pincer(
      [
        'run',
        '--protocol',
        protocol,
        '--endpoint',
        server.url,
        '--model',
        'm',
        '--api-key-env',
        'MY_KEY',
        'Say hello',
      ],
      { MY_KEY: KEY },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`Hello from ${protocol}\n`);
    expect(JSON.stringify(server.requests.at(-1)?.body)).toContain('Say hello');
    expect(JSON.stringify(server.requests.at(-1)?.headers)).toContain(KEY);
  });

  it('--json prints one run event per line', async () => {
    server.reply({
      kind: 'sse',
      frames: frames({ text: ['a', 'b'], usage: { input: 3, output: 2 } }),
    });
    const result = await pincer([
      'run',
      '--protocol',
      protocol,
      '--endpoint',
      server.url,
      '--model',
      'm',
      '--json',
      'x',
    ]);
    expect(result.code).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events[0]).toMatchObject({ type: 'run.started', goal: 'x', resumed: false });
    expect(events.filter((e) => e.type === 'model.delta').map((e) => e.text)).toEqual(['a', 'b']);
    expect(events.find((e) => e.type === 'model.finished')).toMatchObject({
      model: `${protocol}/m`,
      usage: { input_tokens: 3, output_tokens: 2 },
    });
    expect(events.at(-1)).toMatchObject({
      type: 'run.finished',
      outcome: 'completed',
      usage: { input_tokens: 3, output_tokens: 2 },
    });
    expect(new Set(events.map((e) => e.run_id)).size).toBe(1);
  });

  it('fails with the provider named and without the key when the server refuses it', async () => {
    server.reply({ kind: 'json', status: 401, body: { error: { message: `bad key ${KEY}` } } });
    const result = await pincer(
      [
        'run',
        '--protocol',
        protocol,
        '--endpoint',
        server.url,
        '--model',
        'm',
        '--api-key-env',
        'MY_KEY',
        'x',
      ],
      { MY_KEY: KEY },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`pincer run: ${protocol}: HTTP 401: bad key [REDACTED]\n`);
    expect(result.stdout + result.stderr).not.toContain(KEY);
  });
});

describe('pincer run usage errors', () => {
  it('rejects an unknown protocol with exit 2', async () => {
    const result = await pincer(['run', '--protocol', 'carrier-pigeon', 'x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown protocol "carrier-pigeon"');
  });

  it('requires --model for a remote protocol', async () => {
    const result = await pincer(['run', '--protocol', 'anthropic', 'x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--model is required');
  });

  it('names the unreachable host', async () => {
    const server = await startVendorServer();
    await server.close();
    const result = await pincer([
      'run',
      '--protocol',
      'openai',
      '--endpoint',
      server.url,
      '--model',
      'm',
      'x',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /openai-compatible: cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/,
    );
  });
});

describe('pincer run with a stored key', () => {
  it('uses a key kept by `pincer secrets` (encrypted vault) and never prints it', async () => {
    const server = await startVendorServer();
    const env = {
      ...process.env,
      PINCER_HOME: home,
      PINCER_KEYCHAIN: 'off',
      PINCER_VAULT_PASSPHRASE: 'correct horse battery',
    };
    const stored = await runBuiltCli(['secrets', 'set', 'WORK_OPENAI'], {
      env,
      input: 'sk-stored-in-vault-4242',
    });
    expect(stored.code).toBe(0);
    server.reply({ kind: 'sse', frames: openaiFrames({ text: ['vault ok'] }) });
    const result = await runBuiltCli(
      [
        'run',
        '--protocol',
        'openai',
        '--endpoint',
        server.url,
        '--model',
        'm',
        '--api-key-env',
        'WORK_OPENAI',
        'x',
      ],
      { env },
    );
    expect(result.stdout).toBe('vault ok\n');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-stored-in-vault-4242');
    expect(stored.stdout + stored.stderr + result.stdout + result.stderr).not.toContain(
      'sk-stored-in-vault-4242',
    );
    await server.close();
  }, 60_000);
});
