/**
 * `pincer mcp serve`: the agent's tools for other MCP clients. tools/list is what the agent may
 * use (by their model-facing wire names); tools/call is one run of the agent's runtime with
 * the call given as JSON, so validation, the manifest's policy, the sandbox, deadlines, screening
 * and audit are Pincer's. A refusal is an error result naming its CKP code. Approvals have no
 * surface on this transport: an approval the policy asks for is refused at once (the rule's own
 * answer without a person), unless another surface of the same process answers first.
 */

import type { Readable, Writable } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Agent } from '../agent/index.js';
import { RpcError, ToolCalls } from '../ckp-server/index.js';
import { wireToolName } from '../models/index.js';
import { PINCER_VERSION } from '../product.js';

export interface McpServeOptions {
  agent: Agent;
  /** Name globs of the tools offered (the agent's own allow list applies to every call). */
  allow: readonly string[];
  input?: Readable;
  output?: Writable;
}

/** Serves until the client closes the connection. */
export async function serveMcp(options: McpServeOptions): Promise<void> {
  const { agent } = options;
  const calls = new ToolCalls();
  const server = new Server(
    { name: agent.claw.name, version: PINCER_VERSION },
    { capabilities: { tools: {} } },
  );
  // MCP clients take tool names of letters, digits, `_` and `-`: fs/read is offered as fs__read.
  const canonicalOf = (wire: string) =>
    agent.registry.visible(options.allow).find((tool) => wireToolName(tool.name) === wire)?.name;
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: agent.registry.visible(options.allow).map((tool) => ({
      name: wireToolName(tool.name),
      description: tool.description,
      inputSchema: { type: 'object' as const, ...tool.inputSchema },
      annotations: tool.annotations,
    })),
  }));
  let next = 0;
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const name = canonicalOf(request.params.name) ?? request.params.name;
    try {
      return {
        ...(await calls.call(agent, name, request.params.arguments ?? {}, `mcp-${++next}`)),
      };
    } catch (error) {
      if (!(error instanceof RpcError)) throw error;
      return {
        content: [{ type: 'text', text: `${error.message} (CKP ${error.code})` }],
        isError: true,
        structuredContent: { code: error.code, ...(error.data as Record<string, unknown>) },
      };
    }
  });
  const stopApprovals = agent.governance.broker.onRequest((pending) => {
    // Let any other surface of this process answer first; then refuse.
    setImmediate(() =>
      agent.governance.broker.resolve(pending.id, 'deny', 'mcp-serve: no approval surface'),
    );
  });
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  const input = options.input ?? process.stdin;
  // The client going away ends the input: that ends the session.
  input.once('end', () => void server.close());
  try {
    await server.connect(new StdioServerTransport(input, options.output));
    await closed;
  } finally {
    stopApprovals();
  }
}
