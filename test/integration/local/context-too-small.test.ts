/**
 * A model whose context cannot hold the system text and the tool definitions is told in tokens,
 * with the way out, before generating: never node-llama-cpp's "context shift" error. Real
 * inference on the tiny GGUF (512-token context), in the engine and through the built CLI.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalEngine } from '../../../src/main/core/local/engine.js';
import { isLocalEngineError } from '../../../src/main/core/local/errors.js';
import { writeTinyGguf } from '../../fixtures/tiny-gguf.js';
import { builtCli, runBuiltCli } from '../../support/cli-run.js';

const LONG_SYSTEM = 'Be helpful, careful and kind. '.repeat(300);

let dir = '';
let model = '';
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-context-'));
  model = path.join(dir, 'tiny.gguf');
  await writeTinyGguf(model);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('a context too small for the instructions', () => {
  it('the engine refuses before generating, naming both token counts', async () => {
    const engine = new LocalEngine({
      modelPath: model,
      runtime: { threads: 2 },
      contextSize: 512,
      idleTimeoutMs: 0,
    });
    try {
      const failure = await engine
        .generate('c1', {
          system: LONG_SYSTEM,
          messages: [{ role: 'user', text: 'hi' }],
          maxTokens: 4,
        })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(isLocalEngineError(failure, 'context_too_small')).toBe(true);
      const message = (failure as Error).message;
      expect(message).toMatch(
        /context holds 512 tokens; the instructions take \d{4,}, leaving no room/,
      );
      expect(message).not.toMatch(/context shift/i);
      // A short system text in the same engine still answers.
      const fine = await engine.generate('c2', {
        system: 'Be brief.',
        messages: [{ role: 'user', text: 'hi' }],
        maxTokens: 4,
        sampling: { temperature: 0 },
      });
      expect(fine.usage.outputTokens).toBeGreaterThan(0);
    } finally {
      await engine.dispose();
    }
  }, 120_000);

  it.skipIf(!existsSync(builtCli))(
    'pincer run says it in tokens, with the way out, after leaving every tool out',
    async () => {
      const result = await runBuiltCli(
        [
          'run',
          '--model-path',
          model,
          '--threads',
          '2',
          '--context-size',
          '512',
          '--system',
          LONG_SYSTEM,
          // The newest message is never cut, and this one alone is longer than the window.
          'hello '.repeat(600),
        ],
        { env: { ...process.env, PINCER_HOME: dir, PINCER_KEYCHAIN: 'off' }, timeoutMs: 120_000 },
      );
      expect(result.code).toBe(1);
      // The runtime's fitter left every tool out first, then said why even that cannot fit.
      expect(result.stderr).toMatch(
        /context holds 512 tokens: the instructions and the newest message take \d+ even without tools or older turns/,
      );
      expect(result.stderr).toContain('context size) with more room');
      expect(result.stderr).not.toMatch(/context shift/i);
    },
    120_000,
  );
});
