/**
 * memory/search: hybrid search over what Pincer remembers (#10). The store reaches the tool
 * through its ToolContext (`context.memory`), set by the executor wrapper `withMemory`.
 */
import path from 'node:path';
import type { SearchHit } from '../../memory/store.js';
import { type Tool, ToolError } from '../types.js';

export const memorySearch: Tool = {
  name: 'memory/search',
  description:
    'Search what Pincer remembers (notes, daily threads, indexed documents). Returns passages with their source and lines.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1 },
      limit: { type: 'integer', minimum: 1, maximum: 50 },
    },
    required: ['query'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true },
  category: 'memory',
  tier: 'safe',
  timeoutMs: 10_000,
  maxOutputBytes: 64 * 1024,
  source: 'builtin',
  async run(input, context) {
    if (!context.memory) throw new ToolError('memory is not available in this session');
    const result = await context.memory.search(input.query as string, (input.limit as number) ?? 5);
    if (result.hits.length === 0) {
      return { content: `nothing found${result.notice ? ` (${result.notice})` : ''}` };
    }
    const lines = result.hits.map((hit) => formatHit(hit, context.workspace));
    if (result.notice) lines.push(`[${result.notice}]`);
    return { content: lines.join('\n\n') };
  },
};

/** `source:lines (score, date)` then the passage; workspace files are shown relative to it. */
export function formatHit(hit: SearchHit, workspace?: string): string {
  const relative = workspace ? path.relative(workspace, hit.source) : '';
  const source =
    hit.kind === 'file' && relative && !relative.startsWith('..') && !path.isAbsolute(relative)
      ? relative
      : hit.source;
  const where = hit.kind === 'note' ? source : `${source}:${hit.startLine}-${hit.endLine}`;
  return `${where} (score ${hit.score.toFixed(4)}, ${hit.updatedAt.slice(0, 10)})\n${hit.text.trim()}`;
}
