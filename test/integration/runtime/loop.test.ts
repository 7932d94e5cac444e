/**
 * End-to-end runs of the agent loop with the scripted model, real SQLite and real tool
 * functions: answers, tools (parallel and ordered), self-correction, every guard, cancellation,
 * policy and approvals, sessions and branches, lanes.
 */
import os from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { viaProvider } from '../../../src/main/core/models/access.js';
import type { ApprovalHook, PolicyHook } from '../../../src/main/core/policy/hooks.js';
import { AgentRuntime, type RuntimeDeps } from '../../../src/main/core/runtime/runtime.js';
import type { RunStore } from '../../../src/main/core/runtime/store.js';
import { ToolRegistry } from '../../../src/main/core/tools/registry.js';
import { textOf } from '../../../src/shared/messages.js';
import { noTools, UNGOVERNED } from '../../support/runtime-hooks.js';
import { ScriptedProvider, type ScriptedReply } from '../../support/scripted-provider.js';
import { drain, tempStore, toolHost, untilAborted } from './harness.js';

let store: RunStore;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ store, cleanup } = await tempStore());
});
afterEach(() => cleanup());

function runtime(
  script: ConstructorParameters<typeof ScriptedProvider>[0],
  deps: Partial<RuntimeDeps> = {},
) {
  const provider = new ScriptedProvider(script);
  const rt = new AgentRuntime({
    ...UNGOVERNED,
    store,
    model: viaProvider(provider, 'm'),
    system: () => 'Be brief.',
    ...deps,
    tools: deps.tools ?? noTools,
  });
  return { rt, provider };
}

const call = (name: string, input: Record<string, unknown> = {}, id?: string): ScriptedReply => ({
  toolCalls: [{ id, name, input }],
});

describe('agent loop', () => {
  it('answers without tools: events, final state, persisted messages', async () => {
    const { rt, provider } = runtime([{ text: ['Hel', 'lo!'] }]);
    const handle = rt.start({ text: 'hi' });
    const [events, result] = await Promise.all([drain(handle.events.all()), handle.done]);
    expect(result).toMatchObject({ outcome: 'completed', state: 'IDLE', turns: 1 });
    expect(textOf(result.reply ?? { role: 'assistant', content: [] })).toBe('Hello!');
    expect(events.map((e) => e.type)).toEqual([
      'run.started',
      'state.changed',
      'state.changed',
      'model.delta',
      'model.delta',
      'model.finished',
      'state.changed',
      'run.finished',
    ]);
    expect(new Set(events.map((e) => e.run_id))).toEqual(new Set([handle.runId]));
    expect(events.every((e) => e.trace_id.startsWith('trc_') && e.task_id.startsWith('tsk_'))).toBe(
      true,
    );
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(provider.requests[0]?.system).toBe('Be brief.');
    const run = store.getRun(handle.runId);
    expect(run).toMatchObject({ state: 'IDLE', outcome: 'completed', turns: 1 });
    expect(
      store.branch(run?.lastMessageId ?? null).map((m) => [m.message.role, textOf(m.message)]),
    ).toEqual([
      ['user', 'hi'],
      ['assistant', 'Hello!'],
    ]);
  });

  it('runs one tool and feeds its result back', async () => {
    const { host } = toolHost({
      'notes/add': { run: (input) => ({ content: `saved ${String(input.text)}` }) },
    });
    const { rt, provider } = runtime(
      [call('notes/add', { text: 'milk' }, 'c1'), { text: 'Done.' }],
      { tools: host },
    );
    const result = await rt.start({ text: 'remember milk' }).done;
    expect(result.outcome).toBe('completed');
    expect(provider.requests[1]?.messages.at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', toolUseId: 'c1', content: 'saved milk' }],
    });
    expect(store.toolCalls(result.runId)).toMatchObject([
      { callId: 'c1', name: 'notes/add', status: 'completed', result: 'saved milk' },
    ]);
  });

  it('never runs a call from a reply cut off at max_tokens; the model is told why', async () => {
    const { host, log } = toolHost({
      'notes/add': { run: (input) => ({ content: `saved ${String(input.text)}` }) },
    });
    const cut: ScriptedReply = {
      toolCalls: [{ id: 'c1', name: 'notes/add', input: { text: 'mi' } }],
      stopReason: 'max_tokens',
    };
    const { rt, provider } = runtime(
      [cut, call('notes/add', { text: 'milk' }, 'c2'), { text: 'Done.' }],
      {
        tools: host,
      },
    );
    const result = await rt.start({ text: 'remember milk' }).done;
    expect(result.outcome).toBe('completed');
    const told = provider.requests[1]?.messages.at(-1)?.content[0];
    expect(told).toMatchObject({ type: 'tool_result', toolUseId: 'c1', isError: true });
    expect(JSON.stringify(told)).toContain('cut off at the output token limit');
    // Only the call written again, whole, ran.
    expect(log).toEqual(['start notes/add', 'end notes/add']);
    expect(store.toolCalls(result.runId)).toMatchObject([
      { callId: 'c1', name: 'notes/add', status: 'completed' },
      { callId: 'c2', name: 'notes/add', status: 'completed', result: 'saved milk' },
    ]);
  });

  it('runs read-only calls in parallel and side effects alone, in order', async () => {
    let releaseA: () => void = () => {};
    const aWaiting = new Promise<void>((resolve) => {
      releaseA = resolve;
    });
    const { host, log } = toolHost({
      // `a` cannot finish until `b` has started: only parallel execution lets this run end.
      a: {
        readOnly: true,
        run: async () =>
          (await Promise.race([
            aWaiting.then(() => 'ok'),
            new Promise((r) => setTimeout(() => r('serial'), 2000)),
          ])) === 'ok'
            ? { content: 'a' }
            : { content: 'a ran alone', isError: true },
      },
      b: {
        readOnly: true,
        run: () => {
          releaseA();
          return { content: 'b' };
        },
      },
      w: { run: () => ({ content: 'w' }) },
    });
    const { rt } = runtime(
      [
        {
          toolCalls: [
            { name: 'w', input: { n: 1 } },
            { name: 'a', input: {} },
            { name: 'b', input: {} },
            { name: 'w', input: { n: 2 } },
          ],
        },
        { text: 'ok' },
      ],
      { tools: host },
    );
    const result = await rt.start({ text: 'go' }).done;
    expect(result.outcome).toBe('completed');
    expect(log).toEqual([
      'start w',
      'end w',
      'start a',
      'start b',
      'end b',
      'end a',
      'start w',
      'end w',
    ]);
    expect(store.toolCalls(result.runId).map((c) => c.isError)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });

  it('lets the model correct invalid arguments: the registry refuses them before the policy is asked', async () => {
    const registry = new ToolRegistry();
    const ran: unknown[] = [];
    registry.register({
      name: 'demo/read',
      description: 'Read a named file',
      inputSchema: {
        type: 'object',
        properties: { path: { type: 'string' } },
        required: ['path'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true },
      category: 'demo',
      tier: 'safe',
      timeoutMs: 1000,
      maxOutputBytes: 1000,
      source: 'builtin',
      run: async (input: Record<string, unknown>) => {
        ran.push(input);
        return { content: 'file body' };
      },
    });
    const asked: string[] = [];
    const { rt, provider } = runtime(
      [
        call('demo/read', { file: 'a.txt' }),
        call('demo/read', { path: 'a.txt' }),
        { text: 'It says: file body' },
      ],
      {
        tools: registry.host({ allow: ['demo/*'], workspace: os.tmpdir() }),
        policy: {
          decide: async (toolCall) => {
            asked.push(JSON.stringify(toolCall.input));
            return { action: 'allow' };
          },
        },
      },
    );
    const result = await rt.start({ text: 'read a.txt' }).done;
    expect(result.outcome).toBe('completed');
    const firstResult = provider.requests[1]?.messages.at(-1)?.content[0];
    expect(firstResult).toMatchObject({ type: 'tool_result', isError: true });
    const refusal = JSON.parse(String((firstResult as { content: string }).content));
    expect(refusal).toMatchObject({ error: 'invalid_arguments', tool: 'demo/read' });
    // The policy saw only the valid call, and the tool ran only for it.
    expect(asked).toEqual(['{"path":"a.txt"}']);
    expect(ran).toEqual([{ path: 'a.txt' }]);
    expect(provider.requests[2]?.messages.at(-1)?.content[0]).toMatchObject({
      content: 'file body',
    });
  });

  it('builds the context once per run, not once per model call', async () => {
    const { host } = toolHost({ t: { readOnly: true, run: () => ({ content: 'r' }) } });
    let built = 0;
    const { rt, provider } = runtime([call('t'), call('t', { again: true }), { text: 'done' }], {
      tools: host,
      system: () => `context ${++built}`,
    });
    const result = await rt.start({ text: 'go' }).done;
    expect(result.turns).toBe(3);
    expect(built).toBe(1);
    expect(provider.requests.map((request) => request.system)).toEqual([
      'context 1',
      'context 1',
      'context 1',
    ]);
  });

  it('ends on a model error with the reason', async () => {
    const { rt } = runtime([{ fail: 'server_error' }]);
    const result = await rt.start({ text: 'hi' }).done;
    expect(result).toMatchObject({
      state: 'ERROR',
      outcome: 'model_error',
      reason: 'scripted: scripted failure',
    });
  });
});

describe('guards', () => {
  it('max turns', async () => {
    const { host } = toolHost({ t: { readOnly: true, run: () => ({ content: 'x' }) } });
    const { rt } = runtime((_, n) => call('t', { n }), { tools: host, guards: { maxTurns: 3 } });
    const result = await rt.start({ text: 'loop' }).done;
    expect(result).toMatchObject({
      state: 'HALTED',
      outcome: 'max_turns',
      turns: 3,
      reason: 'reached the limit of 3 model calls',
    });
  });

  it('identical repeated tool calls', async () => {
    const { host } = toolHost({ t: { readOnly: true, run: () => ({ content: 'x' }) } });
    const { rt } = runtime(() => call('t', { same: true }), {
      tools: host,
      guards: { maxIdenticalCalls: 3 },
    });
    const result = await rt.start({ text: 'loop' }).done;
    expect(result).toMatchObject({ state: 'HALTED', outcome: 'repeated_tool_call', turns: 3 });
    expect(store.toolCalls(result.runId)).toHaveLength(2);
  });

  it('max tokens and max cost', async () => {
    const { host } = toolHost({ t: { readOnly: true, run: () => ({ content: 'x' }) } });
    const tokens = runtime(
      (_, n) => ({ ...call('t', { n }), usage: { inputTokens: 600, outputTokens: 100 } }),
      { tools: host, guards: { maxTokens: 1000 } },
    );
    expect(await tokens.rt.start({ text: 'a' }).done).toMatchObject({
      outcome: 'max_tokens',
      turns: 2,
      reason: 'used 1400 tokens (limit 1000)',
    });

    const provider = new ScriptedProvider((_, n) => ({
      ...call('t', { n }),
      usage: { inputTokens: 1000, outputTokens: 1000 },
    }));
    const rt = new AgentRuntime({
      ...UNGOVERNED,
      store,
      tools: host,
      model: viaProvider(provider, 'm', { inputPer1k: 0.01, outputPer1k: 0.03 }),
      guards: { maxCostUsd: 0.1 },
    });
    const result = await rt.start({ text: 'b' }).done;
    expect(result).toMatchObject({ outcome: 'max_cost', turns: 3 });
    expect(result.costUsd).toBeCloseTo(0.12);
  });

  it('spending caps across runs (policy rate_limits)', async () => {
    const { rt } = runtime(() => ({ text: 'ok', usage: { inputTokens: 700, outputTokens: 100 } }), {
      caps: { tokensPerHour: 1000 },
    });
    expect((await rt.start({ text: 'one' }).done).outcome).toBe('completed');
    expect((await rt.start({ text: 'two' }).done).outcome).toBe('completed');
    expect(await rt.start({ text: 'three' }).done).toMatchObject({
      outcome: 'max_tokens',
      reason: 'policy cap: 1600 tokens in the last hour (limit 1000)',
    });
    const priced = new AgentRuntime({
      ...UNGOVERNED,
      tools: noTools,
      store,
      model: viaProvider(
        new ScriptedProvider(() => ({ text: 'ok', usage: { inputTokens: 1000, outputTokens: 0 } })),
        'm',
        { inputPer1k: 0.5, outputPer1k: 0 },
      ),
      caps: { costPerDayUsd: 0.5 },
    });
    expect((await priced.start({ text: 'a' }).done).outcome).toBe('completed');
    expect((await priced.start({ text: 'b' }).done).reason).toBe(
      'policy cap: $0.5000 spent in the last 24 hours (limit $0.5)',
    );
  });

  it('turn timeout and run timeout', async () => {
    const slow = runtime([{ text: ['a', 'b', 'c'], delayMs: 400 }], {
      guards: { turnTimeoutMs: 100 },
    });
    expect(await slow.rt.start({ text: 'x' }).done).toMatchObject({
      state: 'TIMEOUT',
      outcome: 'turn_timeout',
    });

    const { host } = toolHost({ hang: { run: (_, context) => untilAborted(context.signal) } });
    const stuck = runtime([call('hang')], { tools: host, guards: { runTimeoutMs: 150 } });
    expect(await stuck.rt.start({ text: 'y' }).done).toMatchObject({
      state: 'TIMEOUT',
      outcome: 'run_timeout',
    });
  });
});

describe('cancellation', () => {
  it('mid-stream keeps what arrived', async () => {
    const { rt } = runtime([{ text: ['first ', 'second ', 'third'], delayMs: 30 }]);
    const controller = new AbortController();
    const handle = rt.start({ text: 'x', signal: controller.signal });
    for await (const event of handle.events.all())
      if (event.type === 'model.delta') controller.abort();
    const result = await handle.done;
    expect(result).toMatchObject({ state: 'HALTED', outcome: 'cancelled' });
    expect(textOf(result.reply ?? { role: 'assistant', content: [] })).toBe('first ');
  });

  it('mid-tool stops the tool through its signal', async () => {
    const { host } = toolHost({ hang: { run: (_, context) => untilAborted(context.signal) } });
    const { rt } = runtime([call('hang')], { tools: host });
    const handle = rt.start({ text: 'x' });
    for await (const event of handle.events.all())
      if (event.type === 'tool.started') handle.cancel();
    expect(await handle.done).toMatchObject({ state: 'HALTED', outcome: 'cancelled' });
  });
});

describe('policy and approvals', () => {
  it('a denied call becomes an error result and the run goes on; an approval is asked and recorded', async () => {
    const { host, log } = toolHost({
      rm: { run: () => ({ content: 'removed' }) },
      ls: { readOnly: true, run: () => ({ content: 'a b' }) },
    });
    const policy: PolicyHook = {
      decide: async (c) =>
        c.name === 'rm' && c.input.force
          ? { action: 'deny', reason: 'force is never allowed', rule: 'no-force' }
          : c.name === 'rm'
            ? { action: 'ask', reason: 'destructive' }
            : { action: 'allow' },
    };
    const asked: string[] = [];
    const approvals: ApprovalHook = {
      request: async (a) => (asked.push(a.call.name), { approved: true, by: 'test' }),
    };
    const { rt, provider } = runtime(
      [
        {
          toolCalls: [
            { name: 'rm', input: { force: true } },
            { name: 'ls', input: {} },
            { name: 'rm', input: {} },
          ],
        },
        { text: 'ok' },
      ],
      { tools: host, policy, approvals },
    );
    const handle = rt.start({ text: 'clean' });
    const [events, result] = await Promise.all([drain(handle.events.all()), handle.done]);
    expect(result.outcome).toBe('completed');
    expect(asked).toEqual(['rm']);
    expect(log).toEqual(['start ls', 'end ls', 'start rm', 'end rm']);
    const results = provider.requests[1]?.messages.at(-1)?.content;
    expect(results).toMatchObject([
      {
        isError: true,
        content: JSON.stringify({
          error: 'policy_denied',
          code: -32011,
          message: 'denied by policy: force is never allowed',
        }),
      },
      { content: 'a b' },
      { content: 'removed' },
    ]);
    const states = events.flatMap((e) => (e.type === 'state.changed' ? [e.to] : []));
    expect(states).toContain('WAITING_APPROVAL');
    expect(
      events
        .filter((e) => e.type === 'policy.decided')
        .map((e) => (e.type === 'policy.decided' ? e.decision : '')),
    ).toEqual(['deny', 'allow', 'ask']);
  });

  it('an approval nobody grants is a no, and the tool does not run', async () => {
    const { host, log } = toolHost({ rm: { run: () => ({ content: 'removed' }) } });
    const { rt } = runtime([call('rm'), { text: 'ok' }], {
      tools: host,
      policy: { decide: async () => ({ action: 'ask', reason: 'r' }) },
    });
    const result = await rt.start({ text: 'x' }).done;
    expect(result.outcome).toBe('completed');
    expect(log).toEqual([]);
    expect(store.toolCalls(result.runId)[0]).toMatchObject({
      isError: true,
      result: JSON.stringify({
        error: 'approval_denied',
        code: -32013,
        message: 'not approved (nobody (test))',
      }),
    });
  });
});

describe('sessions, branches and lanes', () => {
  it('a session remembers earlier runs; a branch starts from an earlier message and leaves the original alone', async () => {
    const echo = (request: { messages: { content: { type: string; text?: string }[] }[] }) => ({
      text: `seen ${request.messages.length}`,
    });
    const { rt } = runtime((request) => echo(request));
    const first = await rt.start({ text: 'one' }).done;
    const second = await rt.start({ text: 'two', sessionId: first.sessionId }).done;
    expect(textOf(second.reply ?? { role: 'assistant', content: [] })).toBe('seen 3');
    const firstRun = store.getRun(first.runId);
    const branch = await rt.start({
      text: 'other two',
      sessionId: first.sessionId,
      fromMessageId: firstRun?.lastMessageId ?? undefined,
    }).done;
    expect(textOf(branch.reply ?? { role: 'assistant', content: [] })).toBe('seen 3');
    const original = store
      .branch(store.getRun(second.runId)?.lastMessageId ?? null)
      .map((m) => textOf(m.message));
    const forked = store
      .branch(store.getRun(branch.runId)?.lastMessageId ?? null)
      .map((m) => textOf(m.message));
    expect(original).toEqual(['one', 'seen 1', 'two', 'seen 3']);
    expect(forked).toEqual(['one', 'seen 1', 'other two', 'seen 3']);
  });

  it('100 concurrent sessions keep per-session order under a concurrency bound', async () => {
    let active = 0;
    let peak = 0;
    const { rt } = runtime(
      (request) => {
        const last = request.messages.at(-1);
        const said = last?.content.find((b) => b.type === 'text');
        return {
          text: `ack ${said && 'text' in said ? said.text : ''} after ${request.messages.length - 1}`,
          delayMs: 1,
        };
      },
      { maxConcurrentRuns: 10 },
    );
    const sessions = Array.from({ length: 100 }, (_, i) => store.createSession(`s${i}`));
    const handles = sessions.flatMap((sessionId, i) =>
      [1, 2, 3].map((n) => rt.start({ text: `s${i}-m${n}`, sessionId })),
    );
    const watcher = setInterval(() => {
      active = rt.activeRuns;
      peak = Math.max(peak, active);
    }, 1);
    const results = await Promise.all(handles.map((h) => h.done));
    clearInterval(watcher);
    expect(results.every((r) => r.outcome === 'completed')).toBe(true);
    expect(peak).toBeLessThanOrEqual(10);
    for (const [i, sessionId] of sessions.entries()) {
      const runs = store.listRuns({ sessionId }).reverse();
      const texts = store.branch(runs.at(-1)?.lastMessageId ?? null).map((m) => textOf(m.message));
      expect(texts).toEqual([
        `s${i}-m1`,
        `ack s${i}-m1 after 0`,
        `s${i}-m2`,
        `ack s${i}-m2 after 2`,
        `s${i}-m3`,
        `ack s${i}-m3 after 4`,
      ]);
    }
  });
});
