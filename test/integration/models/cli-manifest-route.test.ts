/**
 * `pincer run --provider NAME`: providers, limits, retries and the fallback chain come from a
 * claw.yaml; the built CLI walks the chain against real servers on 127.0.0.1.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVendorServer, type VendorServer } from '../../fixtures/vendor-server.js';
import { anthropicFrames } from '../../fixtures/vendor-streams.js';
import { runBuiltCli } from '../../support/cli-run.js';
import { writeClaw } from '../../support/manifest.js';

let dir = '';
let primary: VendorServer;
let backup: VendorServer;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-route-'));
  primary = await startVendorServer('/v1');
  backup = await startVendorServer('/v1');
  await writeClaw(dir, {
    name: 'routed',
    identity: { personality: 'Terse.' },
    providers: [
      {
        name: 'main',
        protocol: 'openai-compatible',
        endpoint: primary.url,
        model: 'big',
        auth: { type: 'bearer', secret_ref: 'MAIN_KEY' },
        retry: { max_attempts: 2, backoff: 'constant', initial_delay_ms: 1 },
        limits: { tokens_per_request: 100000 },
        fallback: [{ provider_ref: 'spare' }],
      },
      {
        name: 'spare',
        protocol: 'anthropic-native',
        endpoint: backup.url,
        model: 'claude-haiku-4-5',
        auth: { type: 'api-key-header', secret_ref: 'SPARE_KEY' },
      },
    ],
  });
});
afterAll(async () => {
  await Promise.all([primary.close(), backup.close(), rm(dir, { recursive: true, force: true })]);
});

const pincer = (...args: string[]) =>
  runBuiltCli(args, {
    env: {
      ...process.env,
      PINCER_HOME: dir,
      MAIN_KEY: 'main-secret-1',
      SPARE_KEY: 'spare-secret-2',
    },
  });

describe('pincer run --provider', () => {
  it('falls back along the manifest chain after the retries are spent', async () => {
    primary.reply(
      { kind: 'text', status: 503, body: 'down for maintenance' },
      { kind: 'text', status: 503, body: 'still down' },
    );
    backup.reply({ kind: 'sse', frames: anthropicFrames({ text: ['spare ', 'here'] }) });
    const result = await pincer(
      'run',
      '--provider',
      'main',
      '--manifest',
      path.join(dir, 'claw.yaml'),
      'hello',
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('spare here\n');
    expect(result.stderr).toBe(
      '[answered by spare/claude-haiku-4-5; before it: main: HTTP 503: still down]\n',
    );
    expect(primary.requests).toHaveLength(2);
    expect(primary.requests[0]?.headers.authorization).toBe('Bearer main-secret-1');
    expect(backup.requests[0]?.headers['x-api-key']).toBe('spare-secret-2');
    expect(backup.requests[0]?.body).toMatchObject({
      model: 'claude-haiku-4-5',
      system: expect.any(String),
    });
  });

  it('names the providers it has when asked for one it does not', async () => {
    const result = await pincer(
      'run',
      '--provider',
      'nope',
      '--manifest',
      path.join(dir, 'claw.yaml'),
      'x',
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the manifest has no provider "nope" (it has main, spare)');
  });
});
