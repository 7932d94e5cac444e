/** memory/note and memory/search through the real tool runner, memory handed in by withMemory. */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryNote } from '../../../src/main/core/memory/note-tool.js';
import { MemoryStore } from '../../../src/main/core/memory/store.js';
import { memoryToolAccess, withMemory } from '../../../src/main/core/memory/tool-access.js';
import { openDatabase } from '../../../src/main/core/storage/database.js';
import { memorySearch } from '../../../src/main/core/tools/builtins/memory.js';
import { runTool } from '../../../src/main/core/tools/run-tool.js';
import { inProcessExecutor } from '../../../src/main/core/tools/types.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('memory tools', () => {
  it('note appends to the daily thread, and search finds it with its source and lines', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-memtools-'));
    dirs.push(dir);
    const workspace = path.join(dir, 'workspace');
    await mkdir(workspace);
    const db = openDatabase(path.join(dir, 'pincer.db'));
    const store = MemoryStore.open(db);
    const at = new Date(2026, 10, 23, 9, 30);
    const executor = withMemory(
      inProcessExecutor,
      memoryToolAccess(store, () => at),
    );
    const settings = { workspace, executor };
    const signal = new AbortController().signal;

    const first = await runTool(memoryNote, { text: 'The boiler code is 4471.' }, settings, signal);
    expect(first).toEqual({ content: 'noted in threads/daily/2026-11-23.md', isError: undefined });
    await runTool(memoryNote, { text: 'Buy oat milk.' }, settings, signal);
    const thread = await readFile(path.join(workspace, 'threads/daily/2026-11-23.md'), 'utf8');
    expect(thread).toBe(
      '# 2026-11-23\n\n## 09:30\nThe boiler code is 4471.\n\n## 09:30\nBuy oat milk.\n',
    );

    const found = await runTool(memorySearch, { query: 'boiler code' }, settings, signal);
    expect(found.isError).toBeUndefined();
    expect(found.content).toContain('threads/daily/2026-11-23.md:3-4');
    expect(found.content).toContain('The boiler code is 4471.');
    expect(found.content).toContain('keyword (FTS5) search only');

    // Without memory in the context the tools say so instead of failing obscurely.
    const bare = await runTool(memorySearch, { query: 'x' }, { workspace }, signal);
    expect(bare).toEqual({ content: 'memory is not available in this session', isError: true });
    db.close();
  });
});
