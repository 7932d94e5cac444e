/**
 * Tools (#5): what a tool is, beyond what the model sees. The model gets name, description and
 * input schema; the registry also keeps annotations, category and safety tier for the policy,
 * and a timeout and output cap for execution.
 */
import type { MemoryToolAccess } from '../memory/tool-access.js';
import type { ToolFacts } from '../policy/rules.js';

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
}

export interface ToolContext {
  signal: AbortSignal;
  /** Every path argument resolves inside it. */
  workspace: string;
  /** Environment variables the policy lets tools see (never secrets). */
  env: Record<string, string>;
  /** Loopback and private hosts, refused by net/fetch unless this is set (tests, local servers). */
  allowPrivateNetwork?: boolean;
  /** The profile's memory, for the memory tools; absent where memory is not opened. */
  memory?: MemoryToolAccess;
}

export interface ToolOutput {
  content: string;
  isError?: boolean;
}

export interface Tool extends ToolSpec {
  run(input: Record<string, unknown>, context: ToolContext): Promise<ToolOutput>;
}

/**
 * Where a tool's code actually runs. In-process today; the sandbox (#8) swaps in an executor
 * that runs the same tool in a child process, without the registry or the turn logic changing.
 */
export interface ToolExecutor {
  run(tool: Tool, input: Record<string, unknown>, context: ToolContext): Promise<ToolOutput>;
}

export const inProcessExecutor: ToolExecutor = {
  run: (tool, input, context) => tool.run(input, context),
};

export function factsOf(spec: ToolSpec): ToolFacts {
  return {
    name: spec.name,
    category: spec.category,
    annotations: { ...spec.annotations },
    tier: spec.tier,
  };
}

/** A tool failure the model can read and act on. */
export class ToolError extends Error {
  override readonly name = 'ToolError';
}
