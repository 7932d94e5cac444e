/**
 * What the memory tools need from memory, handed to them in their ToolContext by an executor
 * wrapper, so the tool registry and turn executor stay unaware of memory.
 */
import path from 'node:path';
import type {
  MemoryToolAccess,
  Tool,
  ToolContext,
  ToolExecutor,
  ToolOutput,
} from '../tools/index.js';
import type { MemoryStore, SearchHit } from './store.js';
import { appendDailyNote } from './threads.js';

export type { MemoryToolAccess };

export function memoryToolAccess(
  store: MemoryStore,
  now: () => Date = () => new Date(),
): MemoryToolAccess {
  return {
    search: async (query, limit, workspace) => {
      const result = await store.search(query, { limit });
      if (result.hits.length === 0)
        return `nothing found${result.notice ? ` (${result.notice})` : ''}`;
      const lines = result.hits.map((hit) => formatHit(hit, workspace));
      if (result.notice) lines.push(`[${result.notice}]`);
      return lines.join('\n\n');
    },
    note: async (workspace, text) => {
      const file = await appendDailyNote(workspace, text, now());
      // The daily thread is a file, but what this tool appends the model wrote.
      await store.indexFile(file, workspace, { origin: 'model' });
      return file;
    },
  };
}

/** An executor that gives every tool it runs access to memory, then runs it on `inner`. */
export function withMemory(inner: ToolExecutor, memory: MemoryToolAccess): ToolExecutor {
  return {
    run: (tool: Tool, input: Record<string, unknown>, context: ToolContext): Promise<ToolOutput> =>
      inner.run(tool, input, { ...context, memory }),
    prepare: (tool: Tool) => inner.prepare(tool),
  };
}

/** `source:lines (score, date)` then the passage; workspace files are shown relative to it. */
export function formatHit(hit: SearchHit, workspace?: string): string {
  const relative = workspace ? path.relative(workspace, hit.source) : '';
  const source =
    hit.kind === 'file' && relative && !relative.startsWith('..') && !path.isAbsolute(relative)
      ? relative
      : hit.source;
  const where = hit.kind === 'note' ? source : `${source}:${hit.startLine}-${hit.endLine}`;
  const from = hit.origin ? `, from ${hit.origin}` : '';
  return `${where} (score ${hit.score.toFixed(4)}, ${hit.updatedAt.slice(0, 10)}${from})\n${hit.text.trim()}`;
}
