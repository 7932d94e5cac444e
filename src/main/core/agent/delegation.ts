/**
 * Sub-agents as a tool (`agents/delegate`, seed 001 §10 phases 2-3, seed 004's brief): the
 * parent's model passes a brief (goal, tool subset, budget, optionally a model) and gets the
 * child's answer and usage back as the tool result. The child is a complete run of a runtime the
 * agent root builds from its own parts (same store, sandbox, policy, approvals, audit), with
 * its own session, and never wider than its parent:
 *
 * - tools: the intersection of what the brief asks and what the parent run may use; asking for a
 *   tool the parent lacks fails the delegation, and the child's policy refuses anything else;
 * - policy and approvals: the parent's engine and broker (a child cannot approve anything the
 *   parent could not, and the same person answers); its origin is the parent's, so a child of
 *   a channel, schedule or protocol client run meets the same origin guard;
 * - budget: each limit is the brief's, capped by what the parent run has left of its own;
 * - memory: reads what the parent reads; its notes land under `agents/<session>/`;
 * - depth and fan-out: the identity's `delegation` declaration (default depth 2, 4 children
 *   per run); at the last level agents/delegate is not offered at all;
 * - cancelling the parent aborts the tool call, which cancels the child's run.
 */
import path from 'node:path';
import type { MemoryToolAccess } from '../memory/index.js';
import type { ModelAccess } from '../models/index.js';
import type { PolicyContext, PolicyHook } from '../policy/index.js';
import { patternMatches } from '../policy/index.js';
import {
  type AgentRuntime,
  type Guards,
  originOf,
  type RunRow,
  type RunStore,
} from '../runtime/index.js';
import { newId, type RunId, type SessionId } from '../terms.js';
import type { ToolHost, ToolRegistry } from '../tools/index.js';
import { type Tool, ToolError } from '../tools/index.js';

export const DELEGATE_TOOL = 'agents/delegate';

export interface DelegationLimits {
  /** How many delegations may stand above a run (1: children, no grandchildren). */
  maxDepth: number;
  /** Children one run may start over its life. */
  maxChildren: number;
}

export const DEFAULT_DELEGATION: Readonly<DelegationLimits> = Object.freeze({
  maxDepth: 2,
  maxChildren: 4,
});

/** What the parent's model writes. */
export interface DelegationBrief {
  goal: string;
  /** Tool names or globs; default: every tool the parent run may use. */
  tools?: string[];
  budget?: { turns?: number; tokens?: number; cost_usd?: number; time_ms?: number };
  /** A provider of the manifest; default: the parent's model. */
  model?: string;
}

/** What the root builds a child runtime from. */
export interface ChildSpec {
  /** Exact tool names the child sees and its policy lets through. */
  tools: readonly string[];
  model: ModelAccess;
  guards: Guards;
  /** Where the child's memory notes go, relative to the workspace. */
  partition: string;
}

export interface DelegationDeps {
  store: RunStore;
  registry: ToolRegistry;
  /** Globs a run a person started may use (the agent's allow list). */
  rootTools: readonly string[];
  /** Tools turned off in a conversation: its runs (and so their children) may not use them. */
  turnedOff?: (sessionId: SessionId) => ReadonlySet<string>;
  /** The agent's guards: no child budget goes past them. */
  ceiling: Guards;
  limits: DelegationLimits;
  childRuntime(spec: ChildSpec): AgentRuntime;
  defaultModel: ModelAccess;
  /** Opens a manifest provider for one child; released when the child ends. */
  openModel(name: string): Promise<{ access: ModelAccess; release(): Promise<void> }>;
}

/** What a delegated run keeps in its options: the boundaries it ran under. */
interface DelegationRecord {
  tools: string[];
  depth: number;
}

export class Delegation {
  private readonly running = new Set<AgentRuntime>();

  constructor(private readonly deps: DelegationDeps) {}

  /** The tool the registry holds; it runs on the host (the sandbox pool does not know it). */
  readonly tool: Tool = {
    name: DELEGATE_TOOL,
    description:
      'Hand a self-contained task to a sub-agent and get its answer. Give it a clear goal with every fact it needs (it does not see this conversation), the tools it may use (a subset of yours) and a budget.',
    inputSchema: {
      type: 'object',
      properties: {
        goal: { type: 'string', minLength: 1, maxLength: 8000 },
        tools: { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: 32 },
        budget: {
          type: 'object',
          properties: {
            turns: { type: 'integer', minimum: 1, maximum: 100 },
            tokens: { type: 'integer', minimum: 1 },
            cost_usd: { type: 'number', minimum: 0 },
            time_ms: { type: 'integer', minimum: 1000 },
          },
          additionalProperties: false,
        },
        model: { type: 'string', minLength: 1 },
      },
      required: ['goal'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    category: 'agents',
    tier: 'guarded',
    // The child's own run deadline (its budget) is the one that binds.
    timeoutMs: 24 * 3_600_000,
    maxOutputBytes: 64 * 1024,
    source: 'builtin',
    run: async (input, context) => {
      if (!context.runId) throw new ToolError(`${DELEGATE_TOOL} runs only inside an agent run`);
      return this.delegate(
        context.runId as RunId,
        input as unknown as DelegationBrief,
        context.signal,
      );
    },
  };

  /** Whether a sub-agent's run is executing now. */
  isLive(runId: RunId): boolean {
    for (const runtime of this.running) if (runtime.isLive(runId)) return true;
    return false;
  }

  /**
   * The tools a run may use, as exact names: a delegated run's brief, else the agent's allow
   * list less what the run's conversation turned off.
   */
  toolsOf(runId: RunId): string[] {
    const run = this.deps.store.getRun(runId);
    const record = run?.options.delegation as DelegationRecord | undefined;
    const globs = record?.tools ?? this.deps.rootTools;
    const off = !record && run ? this.deps.turnedOff?.(run.sessionId) : undefined;
    return this.deps.registry
      .visible(globs)
      .map((tool) => tool.name)
      .filter((name) => !off?.has(name));
  }

  /** Why a run may not use `name`: its brief left it out, or its conversation turned it off. */
  refusal(runId: RunId, name: string): { reason: string; rule: string } {
    const run = this.deps.store.getRun(runId);
    return run?.options.delegation
      ? subAgentRefusal(name)
      : {
          reason: `${name} is turned off for this conversation (its Tools menu turns it back on)`,
          rule: 'session:tools',
        };
  }

  async delegate(
    parentRunId: RunId,
    brief: DelegationBrief,
    signal: AbortSignal,
  ): Promise<{ content: string; isError?: boolean }> {
    const { store, limits } = this.deps;
    const parent = store.getRun(parentRunId);
    if (!parent) throw new ToolError(`no run ${parentRunId}`);
    const depth = store.depthOf(parentRunId) + 1;
    if (depth > limits.maxDepth) {
      throw new ToolError(
        `delegation refused: a sub-agent at depth ${depth} would pass the limit of ${limits.maxDepth}`,
      );
    }
    const started = store.childRuns(parentRunId).length;
    if (started >= limits.maxChildren) {
      throw new ToolError(
        `delegation refused: this run already started ${started} sub-agents (limit ${limits.maxChildren})`,
      );
    }
    const tools = this.childTools(this.toolsOf(parentRunId), brief.tools, depth);
    const guards = clampBudget(remainingOf(parent, this.deps.ceiling), brief.budget);
    const model = brief.model
      ? await this.deps.openModel(brief.model).catch((error: unknown) => {
          throw new ToolError(`delegation refused: ${(error as Error).message}`);
        })
      : { access: this.deps.defaultModel, release: async () => {} };
    const sessionId = newId<SessionId>('ses');
    // The child comes from where its parent came from: a channel's, schedule's or protocol
    // client's child meets the same origin guard (nobody's silence approves anything).
    const origin = originOf(parent);
    const runtime = this.deps.childRuntime({
      tools,
      model: model.access,
      guards,
      partition: path.join('agents', sessionId),
    });
    this.running.add(runtime);
    try {
      const handle = runtime.start({
        text: brief.goal,
        sessionId,
        signal,
        guards,
        parent: { runId: parent.id, traceId: parent.traceId },
        ...(origin ? { origin } : {}),
        record: { delegation: { tools, depth } satisfies DelegationRecord },
      });
      const result = await handle.done;
      const reply = result.reply?.content
        .flatMap((block) => (block.type === 'text' ? [block.text] : []))
        .join('');
      return {
        content: JSON.stringify({
          run_id: result.runId,
          session_id: result.sessionId,
          outcome: result.outcome,
          ...(result.outcome !== 'completed' ? { reason: result.reason } : {}),
          reply: reply ?? '',
          usage: {
            input_tokens: result.usage.inputTokens,
            output_tokens: result.usage.outputTokens,
          },
          cost_usd: result.costUsd,
          turns: result.turns,
        }),
        isError: result.outcome !== 'completed',
      };
    } finally {
      this.running.delete(runtime);
      await model.release();
    }
  }

  /** Cancels every child still running and waits for each to record its end. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.running].map((runtime) => runtime.stopAll()));
  }

  /**
   * The brief's tools within the parent's: each name or glob asked for must match a tool the
   * parent has (else the delegation fails, naming it); none asked means all of the parent's.
   */
  private childTools(parentTools: string[], asked: string[] | undefined, depth: number): string[] {
    const wanted = asked ?? parentTools;
    const missing = wanted.filter(
      (glob) => !parentTools.some((name) => patternMatches(glob, name, true)),
    );
    if (missing.length) {
      throw new ToolError(
        `delegation refused: the delegating run has no tool matching ${missing.join(', ')} (it has ${parentTools.join(', ') || 'none'})`,
      );
    }
    return parentTools.filter(
      (name) =>
        wanted.some((glob) => patternMatches(glob, name, true)) &&
        // At the last level a child cannot delegate further: it is not even offered the tool.
        !(name === DELEGATE_TOOL && depth >= this.deps.limits.maxDepth),
    );
  }
}

/**
 * What a run has left of its guards (the agent's, narrowed by its own when it is itself a
 * child or was started with a budget): turns, tokens, cost and time spent so far taken off.
 */
export function remainingOf(run: RunRow, ceiling: Guards): Guards {
  const own = { ...ceiling, ...(run.options.guards as Partial<Guards> | undefined) };
  const spentTokens = run.usage.inputTokens + run.usage.outputTokens;
  const elapsedMs = Date.now() - Date.parse(run.createdAt);
  const left = {
    maxTurns: own.maxTurns - run.turns,
    maxTokens: own.maxTokens - spentTokens,
    maxCostUsd: own.maxCostUsd - run.costUsd,
    runTimeoutMs: own.runTimeoutMs - (Number.isFinite(elapsedMs) ? elapsedMs : 0),
  };
  const spent = Object.entries(left).filter(([, value]) => value <= 0);
  if (spent.length) {
    throw new ToolError(
      `delegation refused: this run has no ${spent.map(([key]) => key).join(', ')} left for a sub-agent`,
    );
  }
  return { ...own, ...left };
}

/** Each budget limit is the brief's, never past the ceiling (what the parent has left). */
export function clampBudget(ceiling: Guards, budget: DelegationBrief['budget'] = {}): Guards {
  const within = (asked: number | undefined, limit: number) =>
    asked === undefined ? limit : Math.min(asked, limit);
  return {
    ...ceiling,
    maxTurns: within(budget.turns, ceiling.maxTurns),
    maxTokens: within(budget.tokens, ceiling.maxTokens),
    maxCostUsd: within(budget.cost_usd, ceiling.maxCostUsd),
    runTimeoutMs: within(budget.time_ms, ceiling.runTimeoutMs),
  };
}

/** A child's policy: its own tool subset first, then the parent's engine decides. */
export function narrowedPolicy(
  inner: PolicyHook,
  tools: readonly string[] | ((context: PolicyContext) => readonly string[]),
  refusal: (name: string, context: PolicyContext) => { reason: string; rule: string } = (name) =>
    subAgentRefusal(name),
): PolicyHook {
  const fixed = typeof tools === 'function' ? undefined : new Set(tools);
  return {
    decide: async (call, context) => {
      const name = call.name;
      const allowed = fixed ?? new Set(typeof tools === 'function' ? tools(context) : tools);
      if (!allowed.has(name)) return { action: 'deny', ...refusal(name, context) };
      return inner.decide(call, context);
    },
  };
}

/**
 * The tool list a run's model is offered, narrowed to what the run may use (`toolsOf`): the
 * same subset its policy lets through, so what the model sees and what runs never differ.
 */
export function narrowedTools(host: ToolHost, toolsOf: (runId: RunId) => readonly string[]) {
  return {
    ...host,
    definitions: (scope) => {
      const all = host.definitions(scope);
      if (!scope) return all;
      const allowed = new Set(toolsOf(scope.runId));
      return all.filter((tool) => allowed.has(tool.name));
    },
  } satisfies ToolHost;
}

function subAgentRefusal(name: string): { reason: string; rule: string } {
  return {
    reason: `${name} is not among the tools this sub-agent was given`,
    rule: 'delegation:tools',
  };
}

/** The child reads the parent's memory; its notes land in its own partition of the workspace. */
export function partitionedMemory(inner: MemoryToolAccess, partition: string): MemoryToolAccess {
  return {
    search: (query, limit, workspace) => inner.search(query, limit, workspace),
    note: (workspace, text) => inner.note(path.join(workspace, partition), text),
  };
}
