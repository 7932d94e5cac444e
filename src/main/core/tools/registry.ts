/**
 * The tool registry: every tool Pincer knows (built-in, declared in the manifest, later MCP),
 * the allow lists that decide which of them a model sees, and the bridge to the runtime: a
 * ToolHost that validates arguments, runs the tool under its deadline and caps its output.
 *
 * Tools are known by canonical names (`fs/read`) only. Model APIs accept names matching
 * ^[a-zA-Z0-9_-]{1,64}$, so the model layer sends `fs__read`; registering checks that no two
 * tools would share a wire name.
 */
import type { ToolCall, ToolDef } from '../../../shared/messages.js';
import type { Primitive, ResolvedClaw } from '../ckp/index.js';
import { CKP_ERRORS, toolCategory } from '../ckp/index.js';
import { WIRE_TOOL_NAME, wireToolName } from '../models/index.js';
import type { ToolFacts } from '../policy/index.js';
import { patternMatches } from '../policy/index.js';
import type { ToolHost, ToolOutcome, ToolRunContext } from './host.js';
import { capOutput, runTool } from './run-tool.js';
import {
  factsOf,
  type Tool,
  ToolError,
  type ToolExecutor,
  type ToolOutput,
  type ToolSpec,
} from './types.js';
import { ArgumentValidator } from './validate.js';

const NAME = /^[a-z0-9][a-z0-9_-]*(\/[a-z0-9][a-z0-9_-]*)*$/;

export interface HostOptions {
  /** Name globs (`fs/*`, `sys/exec`); a tool is visible when one matches. */
  allow: readonly string[];
  workspace: string;
  env?: Record<string, string>;
  allowPrivateNetwork?: boolean;
  /** Where tools run; in-process unless the sandbox provides one. */
  executor?: ToolExecutor;
}

export { capOutput };

/** A call whose tool is known and visible, and whose arguments passed validation. */
export interface CheckedCall {
  call: ToolCall;
  tool: Tool;
}

export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();
  private readonly byWire = new Map<string, string>();
  private readonly validator = new ArgumentValidator();

  register(tool: Tool): void {
    if (!NAME.test(tool.name))
      throw new Error(`"${tool.name}" is not a tool name (lower-case segments joined by /)`);
    const wire = wireToolName(tool.name);
    if (!WIRE_TOOL_NAME.test(wire)) throw new Error(`"${tool.name}" is too long for model APIs`);
    const clash = this.byWire.get(wire);
    if (clash && clash !== tool.name)
      throw new Error(`"${tool.name}" and "${clash}" would share the model name ${wire}`);
    this.tools.set(tool.name, tool);
    this.byWire.set(wire, tool.name);
    this.validator.forget(tool.name);
  }

  unregister(name: string): boolean {
    this.byWire.delete(wireToolName(name));
    this.validator.forget(name);
    return this.tools.delete(name);
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  list(): ToolSpec[] {
    return [...this.tools.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** What the policy needs to know about a tool. */
  facts(name: string): ToolFacts | undefined {
    const tool = this.get(name);
    return tool ? factsOf(tool) : undefined;
  }

  visible(allow: readonly string[]): Tool[] {
    return [...this.tools.values()].filter((tool) =>
      allow.some((glob) => patternMatches(glob, tool.name, true)),
    );
  }

  /**
   * What a model sees: the canonical names (the model layer spells them for the wire) and the
   * schemas as declared. A provider that decodes under a grammar narrows them itself.
   */
  modelTools(allow: readonly string[]): ToolDef[] {
    return this.visible(allow).map((tool) => ({
      name: tool.name,
      // The model reads the wire spelling as the name; the description keeps the real one.
      description: `${tool.description} (${tool.name})`,
      parameters: tool.inputSchema,
    }));
  }

  /** Tools the manifest declares. Their execution (MCP, skills) arrives later: they say so. */
  registerManifestTools(claw: ResolvedClaw): void {
    for (const primitive of claw.tools) {
      if (this.tools.has(primitive.name) || !NAME.test(primitive.name)) continue;
      this.register(declaredTool(primitive));
    }
  }

  /** The runtime's view: validation, deadline, output cap; unknown or hidden tools refused. */
  host(options: HostOptions): ToolHost {
    return {
      definitions: () => this.modelTools(options.allow),
      isReadOnly: (name) => this.get(name)?.annotations.readOnlyHint === true,
      validate: async (call) => {
        const checked = await this.check(call, options.allow);
        return 'error' in checked ? checked.error : undefined;
      },
      execute: async (call, context: ToolRunContext): Promise<ToolOutcome> => {
        const checked = await this.check(call, options.allow);
        if ('error' in checked) return checked.error;
        return runTool(checked.tool, call.input, options, context.signal, {
          runId: context.runId,
          callId: call.id,
        });
      },
      prepare: (name) => {
        const tool = this.tools.get(name);
        if (tool && this.visible(options.allow).includes(tool)) options.executor?.prepare(tool);
      },
    };
  }

  /**
   * Resolves a call against the tools `allow` shows and validates its arguments; the failure
   * is the tool result the model gets (unknown tool, or the structured invalid_arguments).
   */
  async check(
    call: ToolCall,
    allow: readonly string[],
  ): Promise<CheckedCall | { error: ToolOutput }> {
    const tool = this.tools.get(call.name);
    const visible = this.visible(allow);
    if (!tool || !visible.includes(tool)) {
      const available = visible.map((t) => t.name);
      const content = JSON.stringify({ error: 'unknown_tool', tool: call.name, available });
      return { error: { content, isError: true, code: CKP_ERRORS.invalidParams } };
    }
    if (call.invalidArguments !== undefined) {
      const violations = [{ path: '', message: call.invalidArguments }];
      const content = JSON.stringify({ error: 'invalid_arguments', tool: tool.name, violations });
      return { error: { content, isError: true } };
    }
    const invalid = await this.validator.check(
      tool.name,
      tool.inputSchema,
      call.input,
      tool.source === 'builtin' ? 'own' : 'foreign',
    );
    if (invalid) {
      const content = JSON.stringify(invalid);
      return { error: { content, isError: true, code: CKP_ERRORS.invalidParams } };
    }
    return { call, tool };
  }
}

function declaredTool(primitive: Primitive<'Tool'>): Tool {
  const annotations = primitive.spec.annotations ?? {};
  return {
    name: primitive.name,
    description: primitive.spec.description ?? primitive.name,
    inputSchema: (primitive.spec.input_schema as Record<string, unknown> | undefined) ?? {
      type: 'object',
    },
    outputSchema: primitive.spec.output_schema as Record<string, unknown> | undefined,
    annotations,
    category: toolCategory(primitive) ?? 'custom',
    tier: annotations.destructiveHint ? 'unsafe' : annotations.readOnlyHint ? 'safe' : 'guarded',
    timeoutMs: primitive.spec.timeout_ms ?? 60_000,
    maxOutputBytes: 256 * 1024,
    source: 'manifest',
    run: async () => {
      throw new ToolError(
        `${primitive.name} is declared in the manifest but has no implementation in this Pincer yet`,
      );
    },
  };
}
