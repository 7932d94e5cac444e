// A small MCP server for the example manifests: two text tools over stdio.
// Pincer starts it through its sandbox (see the mcp_source URIs in level-2 and level-3).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'pincer-example-text', version: '1.0.0' });
server.registerTool(
  'word_count',
  { description: 'Counts the words of a text', inputSchema: { text: z.string() } },
  async ({ text }) => ({
    content: [{ type: 'text', text: String(text.split(/\s+/).filter(Boolean).length) }],
  }),
);
server.registerTool(
  'shout',
  { description: 'Returns the text in capitals', inputSchema: { text: z.string() } },
  async ({ text }) => ({ content: [{ type: 'text', text: text.toUpperCase() }] }),
);
await server.connect(new StdioServerTransport());
