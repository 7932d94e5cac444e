/**
 * Tools: what a tool is, beyond what the model sees. The model gets name, description and
 * input schema; the registry also keeps annotations, category and safety tier for the policy,
 * and a timeout and output cap for execution.
 */
import { categoryOfCkpCode, PincerError } from '../errors.js';
import type { SessionScopeSpec, ToolFacts } from '../policy/index.js';
import { ConfinementError } from '../workspace-fs/index.js';

export type Tier = 'safe' | 'guarded' | 'unsafe';
export type ToolSource = 'builtin' | 'manifest' | 'mcp';

export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolSpec {
  /** Namespaced: `fs/read`. */
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations: ToolAnnotations;
  category: string;
  tier: Tier;
  timeoutMs: number;
  maxOutputBytes: number;
  source: ToolSource;
  /**
   * Files the tool writes whatever its arguments say, relative to the workspace (`${today}`: the
   * local date, YYYY-MM-DD). The policy treats them as paths the call touches, and an approval
   * names them.
   */
  writes?: readonly string[];
  /**
   * The arguments that scope an "approve for session" grant (sys/exec: the program and its first
   * argument). Absent: a session grant covers every call of the tool.
   */
  sessionScope?: SessionScopeSpec;
  /**
   * `host`: the tool's own code runs in the host, not in a sandbox worker, because it reaches
   * nothing by itself: it hands its work to something confined or opened by the host (sys/exec
   * gives its command to the sandbox backend; the memory tools call the host's open memory).
   * Default: a sandbox worker.
   */
  runsOn?: 'host';
}

export interface ToolContext {
  signal: AbortSignal;
  /** Every path argument resolves inside it. */
  workspace: string;
  /** Environment variables the policy lets tools see (never secrets). */
  env: Record<string, string>;
  /** Loopback and private hosts, refused by net/fetch unless this is set (tests, local servers). */
  allowPrivateNetwork?: boolean;
  /** Set by the sandbox: how commands are spawned (confined); unconfined when absent. */
  runCommand?: CommandRunner;
  /** Set by the sandbox: paths granted besides the workspace, and paths never reachable. */
  filesystem?: FilesystemScope;
  /** Set by the sandbox: what net/fetch may reach; public hosts only when absent. */
  network?: NetworkScope;
  /** The profile's memory, for the memory tools; absent where memory is not opened. */
  memory?: MemoryToolAccess;
  /** The run that made the call: host-side tools that start work for it (agents/delegate) link to it. */
  runId?: string;
  /** The call's id in that run (an MCP server's form is shown beside the call that raised it). */
  callId?: string;
}

/** What the memory tools need from memory (memory/tool-access.ts implements it). */
export interface MemoryToolAccess {
  /** Passages matching `query`, as the model reads them (workspace files relative to it). */
  search(query: string, limit: number, workspace: string): Promise<string>;
  /** Appends to today's daily thread in the workspace and indexes it; returns the file. */
  note(workspace: string, text: string): Promise<string>;
}

/** A command as sys/exec asks for it; the runner decides how (and how confined) it runs. */
export interface CommandRequest {
  command: string;
  args: readonly string[];
  shell: boolean;
  /** Absolute, already confined to the workspace. */
  cwd: string;
  timeoutMs: number;
  /** What the caller offers; the runner trims it to what tools may see. */
  env: Record<string, string>;
  maxOutputBytes: number;
}

export type CommandRunner = (request: CommandRequest, signal: AbortSignal) => Promise<ToolOutput>;

export interface FilesystemScope {
  /** Absolute paths granted besides the workspace; `ro` ones refuse writes. */
  mounts: ReadonlyArray<{ path: string; mode: 'ro' | 'rw' }>;
  /** Absolute paths no tool may read or write, unless a grant inside them says otherwise. */
  denied: readonly string[];
  /** The workspace is readable only (filesystem mode read-only). */
  readOnly?: boolean;
  /** No file access at all (filesystem mode deny). */
  none?: boolean;
}

export interface NetworkScope {
  mode: 'deny' | 'allowlist' | 'allow-all';
  /** Names, `*.domain` wildcards and IP literals (see network/host-grant.ts); only an IP literal grants an internal address. */
  allowedHosts: readonly string[];
  /** Refuse loopback, private and link-local addresses not explicitly granted. */
  blockPrivate: boolean;
}

export interface ToolOutput {
  content: string;
  isError?: boolean;
  /** The CKP code of a failure the protocol names (-32010 sandbox denied, -32014 timeout). */
  code?: number;
}

export interface Tool extends ToolSpec {
  run(input: Record<string, unknown>, context: ToolContext): Promise<ToolOutput>;
}

/**
 * Where a tool's code actually runs: in-process by default; the sandbox's executor runs the
 * same tool in a worker process, without the registry or the turn logic changing.
 */
export interface ToolExecutor {
  run(tool: Tool, input: Record<string, unknown>, context: ToolContext): Promise<ToolOutput>;
  /**
   * A call of `tool` is on its way: start what running it needs (ToolHost.prepare). Required,
   * so a wrapper that forgets to pass it on does not type-check.
   */
  prepare(tool: Tool): void;
}

export const inProcessExecutor: ToolExecutor = {
  run: (tool, input, context) => tool.run(input, context),
  prepare: () => undefined,
};

export function factsOf(spec: ToolSpec): ToolFacts {
  return {
    name: spec.name,
    category: spec.category,
    annotations: { ...spec.annotations },
    tier: spec.tier,
    ...(spec.writes ? { writes: spec.writes } : {}),
    ...(spec.sessionScope ? { sessionScope: spec.sessionScope } : {}),
  };
}

/** A tool failure the model can read and act on. */
export class ToolError extends PincerError {
  override readonly name = 'ToolError';
  constructor(
    message: string,
    /** The CKP code when the protocol names the failure (the sandbox's -32010). */
    readonly code?: number,
  ) {
    // Without a CKP code it is the call that cannot be served (bad arguments, a missing file).
    super(code === undefined ? 'invalid_request' : categoryOfCkpCode(code), message);
  }

  override get ckpCode(): number | undefined {
    return this.code;
  }
}

/** Failures whose message goes to the model as it is: a tool's own, and the file guard's. */
export function isToolError(error: unknown): error is Error {
  return error instanceof ToolError || error instanceof ConfinementError;
}
