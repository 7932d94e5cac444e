/**
 * The root opens what a turn needs when the turn needs it: no tool worker runs before the first
 * tool call (and they stay up after it), and the embedding model is read from its header until a
 * search has vectors to compare with.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openAgent } from '../../../src/main/core/agent/index.js';
import { lazyLocalEmbedder } from '../../../src/main/core/local/embeddings.js';
import { MemoryStore } from '../../../src/main/core/memory/store.js';
import { viaProvider } from '../../../src/main/core/models/access.js';
import { createSandbox } from '../../../src/main/core/sandbox/sandbox.js';
import { sandboxSettings } from '../../../src/main/core/sandbox/settings.js';
import { openDatabase } from '../../../src/main/core/storage/database.js';
import type { SessionId } from '../../../src/main/core/terms.js';
import { BUILTIN_TOOLS } from '../../../src/main/core/tools/builtins/index.js';
import { runTool } from '../../../src/main/core/tools/run-tool.js';
import { writeTinyGguf } from '../../fixtures/tiny-gguf.js';
import { APP_DIR } from '../../support/assistant-harness.js';
import { ScriptedProvider } from '../../support/scripted-provider.js';
import { vaultSecrets } from '../../support/secrets.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-lazy-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** Processes whose parent is this one (the sandbox's launcher for each worker). */
function children(): number {
  let count = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/PID/stat is the parent; the name before it is in parentheses.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === process.pid) count++;
    } catch {
      // The process ended while we looked.
    }
  }
  return count;
}

it('a text turn starts no tool worker; the first tool call starts them and they stay up', async () => {
  const provider = new ScriptedProvider([
    { text: ['Hello.'] },
    { toolCalls: [{ name: 'fs/list', input: { path: '.' } }] },
    { text: ['Listed.'] },
  ]);
  const dataDir = path.join(dir, 'data');
  const before = children();
  const agent = await openAgent({
    dataDir,
    appDir: APP_DIR,
    model: { kind: 'fixed', access: viaProvider(provider, 'scripted'), label: 'scripted' },
    secrets: vaultSecrets(dataDir, 'test-passphrase'),
  });
  try {
    const text = agent.runtime.start({ text: 'hi' });
    expect((await text.done).outcome).toBe('completed');
    expect(children()).toBe(before);

    const tool = agent.runtime.start({
      text: 'list the files',
      sessionId: text.sessionId as SessionId,
    });
    expect((await tool.done).outcome).toBe('completed');
    const result = provider.requests[2]?.messages.at(-1)?.content[0];
    expect(result).toMatchObject({ type: 'tool_result' });
    expect((result as { isError?: boolean }).isError).toBeFalsy();
    expect(children()).toBeGreaterThan(before);
  } finally {
    await agent.close();
  }
});

it('a first-use sandbox whose workers cannot start fails that call with -32010, not the open', async () => {
  const workspace = dir;
  const sandbox = await createSandbox({
    settings: sandboxSettings({ workspace }),
    pool: { size: 1, onlineSize: 0, entry: { file: '/nonexistent/worker.js', execArgv: [] } },
    start: 'first-use',
  });
  try {
    const read = BUILTIN_TOOLS.find((tool) => tool.name === 'fs/read');
    if (!read) throw new Error('no fs/read');
    const output = await runTool(
      read,
      { path: 'a.md' },
      { workspace, executor: sandbox.executor },
      new AbortController().signal,
    );
    expect(output).toMatchObject({
      isError: true,
      content: expect.stringMatching(/cannot start|could not start/),
    });
  } finally {
    await sandbox.close();
  }
});

it('the embedding model is known from its header and loads on the first search with vectors', async () => {
  const model = path.join(dir, 'embed.gguf');
  await writeTinyGguf(model, { tokenizer: 'bpe', embedding: 64, seed: 9 });
  let embedded = 0;
  const lazy = await lazyLocalEmbedder({ modelPath: model, runtime: { gpu: false, threads: 1 } });
  const counting = {
    id: lazy.id,
    dimensions: lazy.dimensions,
    embed: (texts: readonly string[]) => {
      embedded += texts.length;
      return lazy.embed(texts);
    },
  };
  const db = openDatabase(path.join(dir, 'memory.db'));
  try {
    expect(lazy.dimensions).toBe(64);
    const store = MemoryStore.open(db, { embedder: counting });
    // Nothing embedded yet: the query is searched by keywords only and the model stays unloaded.
    expect((await store.search('cats')).hits).toEqual([]);
    expect(embedded).toBe(0);
    await store.addNote('the cat sat on the mat');
    const found = await store.search('cat');
    expect(found.hits.length).toBeGreaterThan(0);
    expect(embedded).toBeGreaterThan(1);
  } finally {
    db.close();
    await lazy.dispose();
  }
});
