/**
 * The agent's tools for other MCP clients, on any transport: stdio (`pincer mcp serve`, below)
 * and Streamable HTTP (`http.ts`, the daemon's `--mcp-http`). tools/list is what the agent may
 * use (by their model-facing wire names); tools/call is one run of the agent's runtime with the
 * call given as JSON, so validation, the manifest's policy, the sandbox, deadlines, screening and
 * audit are Pincer's. A refusal is an error result naming its CKP code. A client cancelling its
 * request cancels the run.
 *
 * Approvals: stdio has no surface, so an approval the policy asks for is refused at once (the
 * rule's own answer without a person), unless another surface of the same process answers first.
 * The daemon decides for itself (`daemon/mcp.ts`): the surfaces attached to it answer.
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

/** Where an MCP client's runs come from: remote, so nobody's silence approves anything. */
const MCP_CLIENT = { channel: 'mcp', type: 'mcp' } as const;

export interface McpServerOptions {
  /** Name globs of the tools offered (the agent's own allow list applies to every call). */
  allow: readonly string[];
  /** Where calls in progress are kept; one per agent served, shared by its sessions. */
  calls: ToolCalls;
  /** Aborted: every call in progress is cancelled (the owner stopping, its drain time over). */
  cancel?: AbortSignal;
  /** Told of each call as it starts, with its settling (the owner drains them). */
  onCall?: (settled: Promise<unknown>) => void;
}

/** One MCP server (one client session) over `agent`; connect it to a transport. */
export function mcpServerOver(agent: Agent, options: McpServerOptions): Server {
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
  server.setRequestHandler(
    CallToolRequestSchema,
    async (request, extra): Promise<CallToolResult> => {
      const name = canonicalOf(request.params.name) ?? request.params.name;
      const signal = options.cancel
        ? AbortSignal.any([extra.signal, options.cancel])
        : extra.signal;
      const call = options.calls.call(
        agent,
        name,
        request.params.arguments ?? {},
        `mcp-${String(extra.sessionId ?? 'stdio')}-${String(extra.requestId)}`,
        signal,
      );
      options.onCall?.(call.catch(() => undefined));
      try {
        return { ...(await call) };
      } catch (error) {
        if (!(error instanceof RpcError)) throw error;
        return {
          content: [{ type: 'text', text: `${error.message} (CKP ${error.code})` }],
          isError: true,
          structuredContent: { code: error.code, ...(error.data as Record<string, unknown>) },
        };
      }
    },
  );
  return server;
}

export interface McpServeOptions {
  agent: Agent;
  /** Name globs of the tools offered (the agent's own allow list applies to every call). */
  allow: readonly string[];
  input?: Readable;
  output?: Writable;
}

/** Serves one client over stdio until it closes the connection. */
export async function serveMcp(options: McpServeOptions): Promise<void> {
  const { agent } = options;
  const server = mcpServerOver(agent, { allow: options.allow, calls: new ToolCalls(MCP_CLIENT) });
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
