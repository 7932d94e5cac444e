/**
 * What the memory tools need from memory, handed to them in their ToolContext by an executor
 * wrapper, so the tool registry and turn executor stay unaware of memory.
 */
import type { Tool, ToolContext, ToolExecutor, ToolOutput } from '../tools/types.js';
import type { MemoryStore, SearchResult } from './store.js';
import { appendDailyNote } from './threads.js';

export interface MemoryToolAccess {
  search(query: string, limit: number): Promise<SearchResult>;
  /** Appends to today's daily thread in the workspace and indexes it; returns the file. */
  note(workspace: string, text: string): Promise<string>;
}

export function memoryToolAccess(
  store: MemoryStore,
  now: () => Date = () => new Date(),
): MemoryToolAccess {
  return {
    search: (query, limit) => store.search(query, { limit }),
    note: async (workspace, text) => {
      const file = await appendDailyNote(workspace, text, now());
      await store.indexFile(file, workspace);
      return file;
    },
  };
}

/** An executor that gives every tool it runs access to memory, then runs it on `inner`. */
export function withMemory(inner: ToolExecutor, memory: MemoryToolAccess): ToolExecutor {
  return {
    run: (tool: Tool, input: Record<string, unknown>, context: ToolContext): Promise<ToolOutput> =>
      inner.run(tool, input, { ...context, memory }),
  };
}
