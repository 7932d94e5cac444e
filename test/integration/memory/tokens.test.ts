/** Context measured with the local model's own tokenizer (the tiny GGUF, vocabulary only). */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  asWorkspaceContent,
  ContextBuilder,
  estimateTokens,
} from '../../../src/main/core/memory/context.js';
import { openSessionMemory } from '../../../src/main/core/memory/session.js';
import { localTokenCounter } from '../../../src/main/core/memory/tokens.js';
import { openDatabase } from '../../../src/main/core/storage/database.js';
import { writeTinyGguf } from '../../fixtures/tiny-gguf.js';

let dir = '';
let model = '';
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-tokens-'));
  model = path.join(dir, 'chat.gguf');
  await writeTinyGguf(model, { tokenizer: 'bpe', seed: 3 });
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('local token counts', () => {
  it('the context builder counts sections with the model tokenizer', async () => {
    const counter = await localTokenCounter(model);
    try {
      const text = 'Pincer keeps the spare key under the blue pot.';
      const n = counter.count(text);
      expect(n).toBeGreaterThan(0);
      expect(counter.count('')).toBe(0);
      // A byte-level BPE with a tiny vocabulary needs far more tokens than 4 characters each.
      expect(n).not.toBe(estimateTokens(text));
      const workspace = path.join(dir, 'ws');
      await mkdir(workspace, { recursive: true });
      await writeFile(path.join(workspace, 'SOUL.md'), text);
      const built = await new ContextBuilder({
        workspace,
        budgetTokens: 10_000,
        countTokens: counter.count,
      }).build();
      expect(built.included).toEqual([
        {
          name: 'SOUL.md',
          tokens: counter.count(asWorkspaceContent('# Identity', 'SOUL.md', text)),
        },
      ]);
    } finally {
      await counter.dispose();
    }
  });

  it('a session whose tokenizer cannot open falls back to the estimate', async () => {
    const db = openDatabase(path.join(dir, 'pincer.db'));
    const bad = path.join(dir, 'not-a-model.gguf');
    await writeFile(bad, 'nope');
    const memory = await openSessionMemory({
      db,
      workspace: dir,
      tokenizerModel: bad,
      isToolAllowed: () => false,
      preamble: 'Hello.',
    });
    expect(await memory.system({ text: 'hi' })).toBe('Hello.');
    await memory.close();
    db.close();
  });
});
