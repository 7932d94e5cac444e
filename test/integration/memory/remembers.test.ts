/**
 * Acceptance (#10): a chat remembers a fact from a previous session through retrieval.
 * Session 1: the model notes a fact with memory/note (today's daily thread, indexed). Session 2,
 * a week later, is a fresh runtime on a fresh database connection: the thread is too old to be
 * loaded whole, so the fact can only reach the model's system text through hybrid retrieval
 * (FTS5 + sqlite-vec vectors from the tiny GGUF).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltContext } from '../../../src/main/core/memory/context.js';
import { memoryNote } from '../../../src/main/core/memory/note-tool.js';
import { openSessionMemory } from '../../../src/main/core/memory/session.js';
import { viaProvider } from '../../../src/main/core/models/access.js';
import { AgentRuntime } from '../../../src/main/core/runtime/runtime.js';
import { RunStore } from '../../../src/main/core/runtime/store.js';
import { openDatabase } from '../../../src/main/core/storage/database.js';
import { BUILTIN_TOOLS } from '../../../src/main/core/tools/builtins/index.js';
import { ToolRegistry } from '../../../src/main/core/tools/registry.js';
import { writeTinyGguf } from '../../fixtures/tiny-gguf.js';
import { UNGOVERNED } from '../../support/runtime-hooks.js';
import { ScriptedProvider } from '../../support/scripted-provider.js';

let dir = '';
let model = '';
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-remember-'));
  model = path.join(dir, 'embed.gguf');
  await writeTinyGguf(model, { tokenizer: 'bpe', embedding: 64, seed: 9 });
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

/** One chat session as the CLI opens it: profile database, tools, memory, scripted model. */
async function session(provider: ScriptedProvider, at: Date, contexts: BuiltContext[] = []) {
  const db = openDatabase(path.join(dir, 'profile', 'pincer.db'));
  const workspace = path.join(dir, 'workspace');
  await mkdir(workspace, { recursive: true });
  const registry = new ToolRegistry();
  for (const tool of BUILTIN_TOOLS) registry.register(tool);
  registry.register(memoryNote);
  const allow = ['memory/*'];
  const memory = await openSessionMemory({
    db,
    workspace,
    embeddingModel: model,
    threads: 2,
    preamble: 'You are Pincer.',
    isToolAllowed: (name) => registry.visible(allow).some((t) => t.name === name),
    now: () => at,
    onContext: (built) => contexts.push(built),
  });
  const runtime = new AgentRuntime({
    ...UNGOVERNED,
    store: new RunStore(db),
    model: viaProvider(provider, 'scripted'),
    tools: registry.host({ allow, workspace, executor: memory.executor }),
    system: (request) => memory.system(request),
  });
  return {
    runtime,
    close: async () => {
      await memory.close();
      db.close();
    },
  };
}

describe('a chat remembers a fact from a previous session through retrieval', () => {
  it('session 2 gets the fact noted in session 1 in its system text', async () => {
    const monday = new Date(2026, 10, 16, 10, 0);
    const first = new ScriptedProvider([
      {
        toolCalls: [{ name: 'memory/note', input: { text: 'Ana parks her bike in locker 4417.' } }],
      },
      { text: 'Noted.' },
    ]);
    const one = await session(first, monday);
    const run1 = await one.runtime.start({ text: 'Remember: my bike locker is 4417.' }).done;
    expect(run1.outcome).toBe('completed');
    const toolResult = JSON.stringify(first.requests[1]?.messages.at(-1));
    expect(toolResult).toContain('noted in threads/daily/2026-11-16.md');
    expect(first.requests[0]?.system).not.toContain('4417');
    await one.close();

    const nextWeek = new Date(2026, 10, 23, 9, 0);
    const second = new ScriptedProvider([{ text: 'Locker 4417.' }]);
    const contexts: BuiltContext[] = [];
    const two = await session(second, nextWeek, contexts);
    const run2 = await two.runtime.start({ text: 'Which locker is my bike in?' }).done;
    await two.close();

    expect(run2.outcome).toBe('completed');
    expect(run2.sessionId).not.toBe(run1.sessionId);
    const system = second.requests[0]?.system ?? '';
    expect(system).toContain('Ana parks her bike in locker 4417.');
    expect(system).toMatch(
      /# Remembered \(.*threads\/daily\/2026-11-16\.md:\d+-\d+, \d{4}-\d\d-\d\d\)/,
    );
    // Not loaded as a recent thread: it came through retrieval.
    const built = contexts[0];
    expect(built?.included.map((s) => s.name)).not.toContain('threads/daily/2026-11-16.md');
    expect(built?.included.some((s) => s.name.includes('2026-11-16.md:'))).toBe(true);
    expect(built?.dropped).toContainEqual({ name: 'USER.md', reason: 'not in the workspace' });
  });
});
