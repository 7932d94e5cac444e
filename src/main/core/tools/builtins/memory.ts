/**
 * memory/search: hybrid search over what Pincer remembers (memory/). The store reaches the tool
 * through its ToolContext (`context.memory`), set by the executor wrapper `withMemory`.
 */
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
  // Searches the memory the host holds open (context.memory).
  runsOn: 'host',
  timeoutMs: 10_000,
  maxOutputBytes: 64 * 1024,
  source: 'builtin',
  async run(input, context) {
    if (!context.memory) throw new ToolError('memory is not available in this session');
    const limit = (input.limit as number | undefined) ?? 5;
    return {
      content: await context.memory.search(input.query as string, limit, context.workspace),
    };
  },
};
