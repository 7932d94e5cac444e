import { type Tool, ToolError } from '../types.js';

/** Registered so policies and allow lists can name it; the memory store arrives with #10. */
export const memorySearch: Tool = {
  name: 'memory/search',
  description: 'Search what Pincer remembers from earlier conversations.',
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
  async run() {
    throw new ToolError('memory search is not available yet (it arrives with issue #10)');
  },
};
