/**
 * The acceptance scenario as a user runs it, each step a separate process of the BUILT cli:
 * `pincer memory add` stores a fact; a later `pincer run` (a new session, over the
 * OpenAI-compatible wire to a local server) sends it to the model in its system text.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVendorServer, type VendorServer } from '../../fixtures/vendor-server.js';
import { openaiFrames } from '../../fixtures/vendor-streams.js';
import { runBuiltCli } from '../../support/cli-run.js';

let home = '';
let server: VendorServer;
beforeAll(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'pincer-cli-remember-'));
  server = await startVendorServer('/v1');
});
afterAll(async () => {
  await server.close();
  await rm(home, { recursive: true, force: true });
});

const pincer = (args: string[]) =>
  runBuiltCli(args, {
    env: {
      ...process.env,
      PINCER_HOME: home,
      PINCER_EMBEDDING_MODEL: '',
      PINCER_SHOW_CONTEXT: '1',
    },
    timeoutMs: 60_000,
  });

describe('pincer remembers across sessions (built CLI)', () => {
  it('a fact added in one process reaches the model of a later run', async () => {
    const added = await pincer(['memory', 'add', 'The Wi-Fi password of the cabin is heron-42.']);
    expect(added.code).toBe(0);

    server.reply({ kind: 'sse', frames: openaiFrames({ text: ['heron-42'] }) });
    const run = await pincer([
      'run',
      '--protocol',
      'openai',
      '--endpoint',
      server.url,
      '--model',
      'm',
      "What is the cabin's Wi-Fi password?",
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('heron-42\n');
    const body = server.requests.at(-1)?.body as {
      messages: Array<{ role: string; content: unknown }>;
    };
    const system = body.messages.find((m) => m.role === 'system');
    expect(JSON.stringify(system?.content)).toContain(
      'The Wi-Fi password of the cabin is heron-42.',
    );
    // What the context builder took and left, as PINCER_SHOW_CONTEXT prints it.
    expect(run.stderr).toMatch(/^context: \d+ of 3276 tokens$/m);
    expect(run.stderr).toMatch(/^ {2}\+ note:\S+ \(\d+\)$/m);
    expect(run.stderr).toContain('  - USER.md: not in the workspace');
  });
});
