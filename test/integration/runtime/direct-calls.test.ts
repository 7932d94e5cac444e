/**
 * Tool calls a person types (`@fs/write{...} -> @fs/read{...}`): they run through the real
 * registry, the policy and approvals like a model's calls, never reach the model, and leave a
 * history the model can continue from.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { viaProvider } from '../../../src/main/core/models/access.js';
import type { ApprovalHook, PolicyHook } from '../../../src/main/core/policy/hooks.js';
import { AgentRuntime, type RuntimeDeps } from '../../../src/main/core/runtime/runtime.js';
import type { RunStore } from '../../../src/main/core/runtime/store.js';
import type { ResolveContext } from '../../../src/main/core/toolcall/index.js';
import { parseToolCall } from '../../../src/main/core/toolcall/parser.js';
import { BUILTIN_TOOLS } from '../../../src/main/core/tools/builtins/index.js';
import { ToolRegistry } from '../../../src/main/core/tools/registry.js';
import type { Tool } from '../../../src/main/core/tools/types.js';
import { textOf, toolCallsOf } from '../../../src/shared/messages.js';
import { UNGOVERNED } from '../../support/runtime-hooks.js';
import { ScriptedProvider } from '../../support/scripted-provider.js';
import { drain, tempStore } from './harness.js';

let store: RunStore;
let cleanup: () => Promise<void>;
let workspace: string;
beforeEach(async () => {
  ({ store, cleanup } = await tempStore());
  workspace = await mkdtemp(path.join(os.tmpdir(), 'pincer-direct-'));
});
afterEach(async () => {
  await cleanup();
  await rm(workspace, { recursive: true, force: true });
});

/** Returns JSON, so `$prev.field` has something to read. */
const locate: Tool = {
  name: 'data/locate',
  description: 'Where a named note lives.',
  inputSchema: {
    type: 'object',
    properties: { name: { type: 'string' } },
    required: ['name'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true },
  category: 'data',
  tier: 'safe',
  timeoutMs: 1000,
  maxOutputBytes: 1024,
  source: 'builtin',
  run: async (input) => ({ content: JSON.stringify({ path: `${String(input.name)}.txt` }) }),
};

function setup(deps: Partial<RuntimeDeps> = {}) {
  const registry = new ToolRegistry();
  for (const tool of BUILTIN_TOOLS) registry.register(tool);
  registry.register(locate);
  // The model must never be asked during a direct call; a later test asks it on purpose.
  const provider = new ScriptedProvider([{ text: 'noted' }]);
  const rt = new AgentRuntime({
    ...UNGOVERNED,
    store,
    model: viaProvider(provider, 'm'),
    tools: registry.host({ allow: ['fs/*', 'data/locate'], workspace }),
    ...deps,
  });
  return { rt, provider };
}

const context = (extra: Partial<ResolveContext> = {}): ResolveContext => ({
  isSecretName: (name) => name === 'OPENAI_API_KEY',
  secretValues: ['sk-live-0123456789'],
  ...extra,
});

async function direct(rt: AgentRuntime, text: string, ctx = context()) {
  const handle = rt.start({ text, calls: { program: parseToolCall(text), context: ctx } });
  const [events, result] = await Promise.all([drain(handle.events.all()), handle.done]);
  return { events, result, handle };
}

describe('direct tool calls', () => {
  it('runs a chain in order, $ctx and $prev resolved, without calling the model', async () => {
    const { rt, provider } = setup();
    const text =
      '@fs/write{path=$ctx.file; content="remember the milk"} -> @data/locate{name="note"} -> @fs/read{path=$prev.path}';
    const { result, events, handle } = await direct(
      rt,
      text,
      context({ ctx: { file: 'note.txt' } }),
    );
    expect(result.outcome).toBe('completed');
    expect(result.reason).toBe('the requested tools ran');
    expect(result.state).toBe('IDLE');
    expect(provider.requests).toHaveLength(0);
    expect(await readFile(path.join(workspace, 'note.txt'), 'utf8')).toBe('remember the milk');
    const finished = events.flatMap((e) => (e.type === 'tool.finished' ? [e.name] : []));
    expect(finished).toEqual(['fs/write', 'data/locate', 'fs/read']);
    const states = events.flatMap((e) => (e.type === 'state.changed' ? [e.to] : []));
    expect(states.filter((s) => s === 'WAITING_TOOL')).toHaveLength(3);
    expect(states).not.toContain('EXECUTING');
    // History: the typed command, then tool use / result pairs the model can continue from.
    const history = store.branch(store.latestMessage(handle.sessionId)).map((m) => m.message);
    expect(history.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
    expect(textOf(history[0] as (typeof history)[0])).toBe(text);
    expect(toolCallsOf(history[5] as (typeof history)[0])[0]?.input).toEqual({ path: 'note.txt' });
    expect(JSON.stringify(history.at(-1)?.content)).toContain('remember the milk');
  });

  it('runs a parallel group together and the model continues from it next turn', async () => {
    const { rt, provider } = setup();
    const first = await direct(rt, '[@fs/write{path="a.txt"; content="A"}, @fs/list{path="."}]');
    expect(first.result.outcome).toBe('completed');
    const next = rt.start({ text: 'what did I just do?', sessionId: first.handle.sessionId });
    const answer = await next.done;
    expect(answer.outcome).toBe('completed');
    const sent = provider.requests[0]?.messages ?? [];
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'user']);
    expect(toolCallsOf(sent[1] as (typeof sent)[0]).map((c) => c.name)).toEqual([
      'fs/write',
      'fs/list',
    ]);
  });

  it('stays under policy: a denied step stops the chain and later steps never run', async () => {
    const policy: PolicyHook = {
      decide: async (call) =>
        call.name === 'fs/write'
          ? { action: 'deny', reason: 'read-only today', rule: 'no-writes' }
          : { action: 'allow' },
    };
    const { rt } = setup({ policy });
    const { result, events } = await direct(
      rt,
      '@fs/write{path="x.txt"; content="no"} -> @fs/list{path="."}',
    );
    expect(result.outcome).toBe('completed');
    expect(result.reason).toBe('fs/write failed; 1 later step(s) not run');
    const decided = events.flatMap((e) => (e.type === 'policy.decided' ? [e.decision] : []));
    expect(decided).toEqual(['deny']);
    await expect(readFile(path.join(workspace, 'x.txt'))).rejects.toThrow();
  });

  it('asks for approval where the policy says ask, and a denial is the result', async () => {
    const policy: PolicyHook = { decide: async () => ({ action: 'ask', reason: 'writes ask' }) };
    const asked: string[] = [];
    const approvals: ApprovalHook = {
      request: async (a) => {
        asked.push(a.call.name);
        return { approved: false, by: 'tester' };
      },
    };
    const { rt } = setup({ policy, approvals });
    const { result, events } = await direct(rt, '@fs/write{path="y.txt"; content="no"}');
    expect(asked).toEqual(['fs/write']);
    expect(result.reason).toBe('fs/write failed');
    const finished = events.find((e) => e.type === 'tool.finished');
    expect(finished).toMatchObject({ status: 'denied' });
  });

  it('refuses a secret or ungranted $env before anything runs', async () => {
    const { rt } = setup();
    const env = { allow: ['PROJECT'], values: { PROJECT: 'x', OPENAI_API_KEY: 'sk' } };
    const secret = await direct(
      rt,
      '@fs/write{path="k.txt"; content=$env.OPENAI_API_KEY}',
      context({ env: { ...env, allow: ['PROJECT', 'OPENAI_API_KEY'] } }),
    );
    expect(secret.result.outcome).toBe('denied');
    expect(secret.result.reason).toContain('secrets are never resolved');
    const ungranted = await direct(
      rt,
      '@fs/write{path="h.txt"; content=$env.HOME}',
      context({ env }),
    );
    expect(ungranted.result.reason).toContain('the policy does not grant this variable');
    const granted = await direct(
      rt,
      '@fs/write{path="p.txt"; content=$env.PROJECT}',
      context({ env }),
    );
    expect(granted.result.outcome).toBe('completed');
    expect(await readFile(path.join(workspace, 'p.txt'), 'utf8')).toBe('x');
    await expect(readFile(path.join(workspace, 'k.txt'))).rejects.toThrow();
    expect(secret.events.some((e) => e.type === 'tool.started')).toBe(false);
  });

  it('invalid arguments come back as the structured validation error', async () => {
    const { rt } = setup();
    const { result, events } = await direct(rt, '@fs/read{path=42}');
    expect(result.reason).toBe('fs/read failed');
    const last = store.branch(store.latestMessage(result.sessionId)).at(-1)?.message;
    expect(JSON.stringify(last?.content)).toContain('invalid_arguments');
    expect(events.some((e) => e.type === 'tool.started')).toBe(false);
  });
});
