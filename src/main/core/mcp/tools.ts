/**
 * MCP as a tool source of the registry. Manifest tools with `mcp_source` keep their manifest
 * name, annotations, category and `timeout_ms`, and get their description and schema from the
 * server's `tools/list` when the manifest leaves them out. Every tool of a server in the user's
 * list is `mcp/<server>/<tool>`. Either way a call runs through the same validation, policy,
 * approvals, deadline, screening and audit as a built-in; only `run` is the server's.
 *
 * A server's own annotations are untrusted: they may make a tool look more dangerous
 * (destructiveHint), never safer (readOnlyHint is not taken from a server).
 */
import path from 'node:path';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { Primitive, ResolvedClaw } from '../ckp/index.js';
import { toolCategory } from '../ckp/index.js';
import type { ModelAccess, OutsideSpend, SecretLookup } from '../models/index.js';
import type { ConfinedProcess, ServerSpec } from '../sandbox/index.js';
import { DEFAULT_PATH } from '../sandbox/index.js';
import type { ToolRegistry } from '../tools/index.js';
import { type Tool, type ToolContext, ToolError } from '../tools/index.js';
import type { InputAsker } from './client-requests.js';
import { isGranted, isStdioEntry, type McpServerEntry } from './config.js';
// The MCP SDK is loaded with the first connection: an agent without MCP servers never loads it.
import type { McpCaller, McpConnection, McpTarget } from './connection.js';

export interface McpSourceOptions {
  registry: ToolRegistry;
  spawn: (spec: ServerSpec) => ConfinedProcess;
  secrets: SecretLookup;
  /** The workspace: the root a server is told of (the sandbox gives it a HOME of its own). */
  home: string;
  /** The sandbox's network grant for servers the manifest binds (allow-all only). */
  manifestNetwork: boolean;
  /** How long the first connect of each server may hold the agent's opening. */
  startTimeoutMs?: number;
  backoffMs?: number;
  /** The model a server's sampling request is answered by, when one is available. */
  sampler?: () => ModelAccess | undefined;
  /** Where a server's sampling is charged: the run whose tool call asked for it. */
  spend?: OutsideSpend;
  /** Where a server's form is answered; absent (nobody to ask): elicitation is not offered. */
  inputs?: InputAsker;
  /**
   * Screens a server's own text before the model reads it (tool and schema descriptions):
   * untrusted content, like a tool's output. Absent: kept as the server wrote it.
   */
  screen?: (text: string) => string;
}

export interface McpServerStatus {
  name: string;
  state: McpConnection['state'];
  tools: string[];
  starts: number;
  error?: string;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const SEGMENT = /[^a-z0-9_-]+/g;

export class McpTools {
  private readonly connections = new Map<string, McpConnection>();
  /** Registered tool names per connection, to drop those a list change removes. */
  private readonly registered = new Map<string, Set<string>>();
  /** User servers refused before starting (a secret nobody granted), with the reason. */
  private readonly refused = new Map<string, string>();

  private constructor(private readonly options: McpSourceOptions) {}

  /** Connects the manifest's MCP sources and the user's servers; a failing one keeps retrying. */
  static async open(
    options: McpSourceOptions,
    claw: ResolvedClaw,
    servers: Record<string, McpServerEntry>,
  ): Promise<McpTools> {
    const source = new McpTools(options);
    const starts: Promise<void>[] = [];
    const bySource = new Map<string, Primitive<'Tool'>[]>();
    for (const tool of claw.tools) {
      const uri = tool.spec.mcp_source?.uri;
      if (uri) bySource.set(uri, [...(bySource.get(uri) ?? []), tool]);
    }
    for (const [uri, tools] of bySource) starts.push(source.manifestSource(uri, tools, claw.dir));
    for (const [name, entry] of Object.entries(servers)) {
      if (!entry.disabled) starts.push(source.userServer(name, entry));
    }
    await Promise.all(starts);
    return source;
  }

  status(): McpServerStatus[] {
    return [
      ...[...this.connections].map(([name, connection]) => ({
        name,
        state: connection.state,
        tools: [...(this.registered.get(name) ?? [])].sort(),
        starts: connection.startCount,
        ...(connection.lastError ? { error: connection.lastError } : {}),
      })),
      ...[...this.refused].map(([name, error]) => ({
        name,
        state: 'down' as const,
        tools: [],
        starts: 0,
        error,
      })),
    ];
  }

  /** Starts a user server added or enabled while the agent runs, replacing one of that name. */
  async startServer(name: string, entry: McpServerEntry): Promise<void> {
    await this.stopServer(name);
    await this.userServer(name, entry);
  }

  /** Stops a user server and takes its tools out of the registry. */
  async stopServer(name: string): Promise<void> {
    this.refused.delete(name);
    const connection = this.connections.get(name);
    if (!connection) return;
    this.connections.delete(name);
    for (const tool of this.registered.get(name) ?? []) this.options.registry.unregister(tool);
    this.registered.delete(name);
    await connection.close();
  }

  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map((connection) => connection.close()));
  }

  private async manifestSource(
    uri: string,
    primitives: Primitive<'Tool'>[],
    manifestDir: string,
  ): Promise<void> {
    const target = targetOfUri(uri, { ...this.options, baseDir: manifestDir });
    const connection = await this.connect(uri, target, (listed) => {
      for (const primitive of primitives) {
        const remote = primitive.spec.mcp_source?.tool_name ?? primitive.name;
        const offered = listed.find((tool) => tool.name === remote);
        this.options.registry.register(
          manifestTool(primitive, remote, offered && this.screened(offered), connection),
        );
      }
      this.registered.set(uri, new Set(primitives.map((p) => p.name)));
    });
    await this.firstStart(connection);
  }

  private async userServer(name: string, entry: McpServerEntry): Promise<void> {
    let target: McpTarget;
    try {
      target = await this.targetOfEntry(entry);
    } catch (error) {
      // One server's refused grant or missing secret keeps that server off, not the agent.
      this.refused.set(name, (error as Error).message);
      return;
    }
    const connection = await this.connect(name, target, (listed) => {
      const before = this.registered.get(name) ?? new Set<string>();
      const now = new Set<string>();
      for (const offered of listed) {
        const tool = serverTool(name, this.screened(offered), connection);
        if (!tool) continue;
        try {
          this.options.registry.register(tool);
          now.add(tool.name);
        } catch {
          // A name too long for model APIs or clashing with another: that tool is left out.
        }
      }
      for (const gone of before) if (!now.has(gone)) this.options.registry.unregister(gone);
      this.registered.set(name, now);
    });
    await this.firstStart(connection);
  }

  private async connect(
    label: string,
    target: McpTarget,
    onTools: (tools: McpTool[]) => void,
  ): Promise<McpConnection> {
    const { McpConnection } = await import('./connection.js');
    const connection = new McpConnection({
      label,
      target,
      spawn: this.options.spawn,
      onTools,
      backoffMs: this.options.backoffMs,
      requests: {
        sampler: this.options.sampler,
        ...(this.options.spend ? { spend: this.options.spend } : {}),
        root: this.options.home,
        ...(this.options.inputs ? { inputs: this.options.inputs } : {}),
      },
    });
    this.connections.set(label, connection);
    return connection;
  }

  /** The server's tool with its description and its schema's descriptions screened. */
  private screened(offered: McpTool): McpTool {
    const screen = this.options.screen;
    if (!screen) return offered;
    return {
      ...offered,
      ...(offered.description !== undefined ? { description: screen(offered.description) } : {}),
      ...(offered.title !== undefined ? { title: screen(offered.title) } : {}),
      inputSchema: screenDescriptions(offered.inputSchema, screen) as McpTool['inputSchema'],
    };
  }

  /** A server that does not start within the time keeps starting in the background. */
  private async firstStart(connection: McpConnection): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.options.startTimeoutMs ?? 15_000);
    });
    await Promise.race([connection.connect().catch(() => undefined), limit]);
    clearTimeout(timer);
  }

  /**
   * The entry's environment, its granted `secret:NAME` values read now, on top of a minimal one;
   * the network only when a person granted it. What the entry asks for and nobody granted is
   * refused here, before anything starts.
   */
  private async targetOfEntry(entry: McpServerEntry): Promise<McpTarget> {
    if (isStdioEntry(entry)) {
      return {
        kind: 'stdio',
        argv: [entry.command, ...entry.args],
        env: {
          PATH: DEFAULT_PATH,
          HOME: this.options.home,
          LANG: 'C.UTF-8',
          ...(await this.reveal(entry, entry.env, 'env')),
        },
        network: entry.network === true && isGranted(entry, 'network'),
      };
    }
    return {
      kind: 'http',
      url: new URL(entry.url),
      headers: await this.reveal(entry, entry.headers, 'header'),
    };
  }

  /** Resolves only the secrets this entry references and a person granted it, no other. */
  private async reveal(
    entry: McpServerEntry,
    values: Record<string, string>,
    as: 'env' | 'header',
  ): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(values)) {
      if (!value.startsWith('secret:')) {
        out[name] = value;
        continue;
      }
      const secretName = value.slice('secret:'.length);
      if (!isGranted(entry, value)) {
        throw new ToolError(
          `${as} ${name}: the secret ${secretName} was not granted to this server (a person grants it: pincer mcp import --accept-grant <server>:${value}, or pincer mcp add)`,
        );
      }
      const secret = await this.options.secrets.resolve(secretName);
      if (secret === undefined) throw new ToolError(`${as} ${name}: no secret named ${secretName}`);
      out[name] = secret;
    }
    return out;
  }
}

/**
 * `stdio:///path/to/server arg ...` or an http(s) URL (CKP §5.4 mcp_source). An argument that
 * starts with ./ or ../ is a path relative to the manifest's folder.
 */
export function targetOfUri(
  uri: string,
  options: Pick<McpSourceOptions, 'home' | 'manifestNetwork'> & { baseDir: string },
): McpTarget {
  if (uri.startsWith('stdio://')) {
    const argv = uri
      .slice('stdio://'.length)
      .trim()
      .split(/\s+/)
      .map((arg) => (/^\.\.?\//.test(arg) ? path.resolve(options.baseDir, arg) : arg));
    return {
      kind: 'stdio',
      argv,
      env: { PATH: DEFAULT_PATH, HOME: options.home, LANG: 'C.UTF-8' },
      network: options.manifestNetwork,
    };
  }
  return { kind: 'http', url: new URL(uri), headers: {} };
}

/** Every `description` and `title` string in a JSON Schema, screened; the rest kept. */
function screenDescriptions(value: unknown, screen: (text: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => screenDescriptions(item, screen));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      (key === 'description' || key === 'title') && typeof item === 'string'
        ? screen(item)
        : screenDescriptions(item, screen),
    ]),
  );
}

function callerOf(tool: string, context: ToolContext): McpCaller {
  return {
    tool,
    ...(context.runId ? { runId: context.runId } : {}),
    ...(context.callId ? { callId: context.callId } : {}),
  };
}

function manifestTool(
  primitive: Primitive<'Tool'>,
  remote: string,
  offered: McpTool | undefined,
  connection: McpConnection,
): Tool {
  const annotations = primitive.spec.annotations ?? {};
  return {
    name: primitive.name,
    description: primitive.spec.description ?? offered?.description ?? primitive.name,
    inputSchema: (primitive.spec.input_schema as Record<string, unknown> | undefined) ??
      (offered?.inputSchema as Record<string, unknown> | undefined) ?? { type: 'object' },
    annotations,
    category: toolCategory(primitive) ?? 'mcp',
    tier: annotations.destructiveHint ? 'unsafe' : annotations.readOnlyHint ? 'safe' : 'guarded',
    timeoutMs: primitive.spec.timeout_ms ?? DEFAULT_TIMEOUT_MS,
    maxOutputBytes: 256 * 1024,
    source: 'mcp',
    run: async (input, context) => {
      if (!offered && !connection.tools.some((tool) => tool.name === remote))
        throw new ToolError(`the MCP server offers no tool named ${remote}`);
      return connection.call(remote, input, context.signal, callerOf(primitive.name, context));
    },
  };
}

function serverTool(server: string, offered: McpTool, connection: McpConnection): Tool | undefined {
  const segment = offered.name
    .toLowerCase()
    .replace(SEGMENT, '-')
    .replace(/^-+|-+$/g, '');
  if (!segment) return undefined;
  const destructive = offered.annotations?.destructiveHint === true;
  return {
    name: `mcp/${server}/${segment}`,
    description: offered.description ?? offered.title ?? offered.name,
    inputSchema: offered.inputSchema as Record<string, unknown>,
    // Hints that would loosen the policy (readOnlyHint) are not taken from a server.
    annotations: { readOnlyHint: false, ...(destructive ? { destructiveHint: true } : {}) },
    category: 'mcp',
    tier: destructive ? 'unsafe' : 'guarded',
    timeoutMs: DEFAULT_TIMEOUT_MS,
    maxOutputBytes: 256 * 1024,
    source: 'mcp',
    run: (input, context) =>
      connection.call(
        offered.name,
        input,
        context.signal,
        callerOf(`mcp/${server}/${segment}`, context),
      ),
  };
}
