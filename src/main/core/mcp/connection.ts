/**
 * One MCP server, kept connected: started through the sandbox (stdio) or reached over
 * streamable HTTP, its tool list read at connect and again on `notifications/tools/list_changed`,
 * restarted with backoff when it stops. A call while it is down fails at once with a sentence
 * that says so and why.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  type Tool as McpTool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { PINCER_VERSION } from '../product.js';
import type { ConfinedProcess, ServerSpec } from '../sandbox/index.js';
import { ToolError, type ToolOutput } from '../tools/index.js';
import {
  answerServerRequests,
  type CallerOf,
  type ClientRequestOptions,
  clientCapabilities,
} from './client-requests.js';
import { ConfinedStdioTransport } from './process-transport.js';

export type McpTarget =
  | {
      kind: 'stdio';
      argv: string[];
      env: Record<string, string>;
      network: boolean;
    }
  | { kind: 'http'; url: URL; headers: Record<string, string> };

export type McpState = 'connecting' | 'ready' | 'down' | 'closed';

export interface McpConnectionOptions {
  /** How people see it named: the server's name, or the manifest's mcp_source URI. */
  label: string;
  target: McpTarget;
  /** The sandbox's way to start a confined server. */
  spawn: (spec: ServerSpec) => ConfinedProcess;
  /** Told the server's tools after each connect and each list change. */
  onTools?: (tools: McpTool[]) => void;
  /** First restart delay, doubled up to `maxBackoffMs` while restarts fail. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** What the server may ask of Pincer (sampling, roots); declared at each connect. */
  requests?: ClientRequestOptions;
}

const CONNECT_TIMEOUT_MS = 15_000;
const MAX_TOOLS = 1000;
const MAX_TOOL_PAGES = 100;

/** Who made a call: the run and its tool call (what a server's form is tied to). */
export interface McpCaller {
  runId?: string;
  callId?: string;
  /** The registry's name of the tool. */
  tool?: string;
}

interface InFlight extends McpCaller {
  signal: AbortSignal;
}

export class McpConnection {
  private client: Client | undefined;
  private transport: ConfinedStdioTransport | undefined;
  private current: McpState = 'connecting';
  private failure: string | undefined;
  private retry: NodeJS.Timeout | undefined;
  private delay: number;
  private listed: McpTool[] = [];
  private starts = 0;
  private readonly inFlight = new Set<InFlight>();

  constructor(private readonly options: McpConnectionOptions) {
    this.delay = options.backoffMs ?? 250;
  }

  get state(): McpState {
    return this.current;
  }

  /** Why the server is down (or the last start failed). */
  get lastError(): string | undefined {
    return this.failure;
  }

  get tools(): readonly McpTool[] {
    return this.listed;
  }

  /** How many times the server was started (1 + restarts). */
  get startCount(): number {
    return this.starts;
  }

  /** Connects once; on failure the error is kept and restarts are scheduled. */
  async connect(): Promise<void> {
    if (this.current === 'closed') return;
    this.current = 'connecting';
    this.starts++;
    const requests = this.options.requests ?? {};
    const client = new Client(
      { name: 'pincer', version: PINCER_VERSION },
      { capabilities: clientCapabilities(requests) },
    );
    answerServerRequests(client, requests, this.options.label, () => this.callerOf());
    let transport: Transport;
    if (this.options.target.kind === 'stdio') {
      const { argv, env, network } = this.options.target;
      this.transport = new ConfinedStdioTransport(this.options.spawn({ argv, env, network }));
      transport = this.transport;
    } else {
      this.transport = undefined;
      transport = new StreamableHTTPClientTransport(this.options.target.url, {
        requestInit: { headers: this.options.target.headers },
      });
    }
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      if (this.client === client) await this.refresh(client).catch(() => undefined);
    });
    client.onclose = () => {
      if (this.client !== client || this.current === 'closed') return;
      this.client = undefined;
      this.down(this.faultOr(`it stopped${this.stderrTail()}`));
    };
    try {
      await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
      this.client = client;
      await this.refresh(client);
      this.current = 'ready';
      this.failure = undefined;
      this.delay = this.options.backoffMs ?? 250;
    } catch (error) {
      this.client = undefined;
      await client.close().catch(() => undefined);
      this.down(this.faultOr(`it did not start: ${(error as Error).message}${this.stderrTail()}`));
      throw error;
    }
  }

  async call(
    name: string,
    input: Record<string, unknown>,
    signal: AbortSignal,
    caller: McpCaller = {},
  ): Promise<ToolOutput> {
    const client = this.client;
    if (!client || this.current !== 'ready') {
      throw new ToolError(
        `MCP server ${this.options.label} is not running (${this.failure ?? 'starting'}); it is being restarted`,
      );
    }
    let result: CallToolResult;
    const flight: InFlight = { ...caller, signal };
    this.inFlight.add(flight);
    try {
      result = (await client.callTool({ name, arguments: input }, undefined, {
        signal,
        // The tool's deadline is the registry's (timeout_ms); the SDK's own must not cut it first.
        timeout: 2 ** 31 - 1,
      })) as CallToolResult;
    } catch (error) {
      if (signal.aborted) throw error;
      const why = this.faultOr(
        this.current === 'ready' ? (error as Error).message : (this.failure ?? 'it stopped'),
      );
      throw new ToolError(`MCP server ${this.options.label} failed this call: ${why}`);
    } finally {
      this.inFlight.delete(flight);
    }
    return { content: resultText(result), ...(result.isError ? { isError: true } : {}) };
  }

  /**
   * The call a server's request belongs to. MCP does not say (on stdio nothing ties a server's
   * request to the client's call it serves), so: the one run with calls in flight here.
   */
  private callerOf(): CallerOf {
    const calls = [...this.inFlight].filter((flight) => flight.runId && !flight.signal.aborted);
    const runs = new Set(calls.map((flight) => flight.runId));
    if (runs.size === 0) return { kind: 'none' };
    if (runs.size > 1) return { kind: 'ambiguous' };
    const [first] = calls as [InFlight & { runId: string }];
    const single = calls.length === 1;
    return {
      kind: 'call',
      runId: first.runId,
      ...(single && first.callId ? { callId: first.callId } : {}),
      ...(single && first.tool ? { tool: first.tool } : {}),
      signal: single ? first.signal : AbortSignal.any(calls.map((flight) => flight.signal)),
    };
  }

  async close(): Promise<void> {
    this.current = 'closed';
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
    await this.transport?.close().catch(() => undefined);
  }

  private async refresh(client: Client): Promise<void> {
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined);
      tools.push(...page.tools);
      cursor = page.nextCursor;
      // A server that pages without end, or lists more tools than any model can be shown.
      if (++pages > MAX_TOOL_PAGES || tools.length > MAX_TOOLS)
        throw new ToolError(
          `it lists more than ${MAX_TOOLS} tools (or ${MAX_TOOL_PAGES} pages), the most Pincer reads`,
        );
    } while (cursor);
    this.listed = tools;
    this.options.onTools?.(tools);
  }

  private down(why: string): void {
    if (this.current === 'closed') return;
    this.current = 'down';
    this.failure = why;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => {
      void this.connect().catch(() => undefined);
    }, this.delay);
    this.retry.unref();
    this.delay = Math.min(this.delay * 2, this.options.maxBackoffMs ?? 10_000);
  }

  /** The transport's own reason when Pincer cut the server off, else `why`. */
  private faultOr(why: string): string {
    const fault = this.transport?.fault;
    return fault ? `disconnected: ${fault}` : why;
  }

  private stderrTail(): string {
    const tail = this.transport?.lastStderr.split('\n').slice(-3).join(' ');
    return tail ? ` (stderr: ${tail})` : '';
  }
}

/** What a model reads of an MCP result: its text, and a note for what is not text. */
function resultText(result: CallToolResult): string {
  const parts = (result.content ?? []).map((block) => {
    switch (block.type) {
      case 'text':
        return block.text;
      case 'image':
      case 'audio':
        return `[${block.type} ${block.mimeType}]`;
      case 'resource':
        return 'text' in block.resource
          ? String(block.resource.text)
          : `[resource ${block.resource.uri}]`;
      case 'resource_link':
        return `[resource ${block.uri}]`;
      default:
        return '';
    }
  });
  if (parts.length === 0 && result.structuredContent !== undefined)
    return JSON.stringify(result.structuredContent);
  return parts.join('\n');
}
