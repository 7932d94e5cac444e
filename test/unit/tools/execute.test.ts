import { describe, expect, it } from 'vitest';
import { executeToolCalls } from '../../../src/main/core/tools/execute.js';
import { ToolRegistry } from '../../../src/main/core/tools/registry.js';
import type { Tool, ToolExecutor } from '../../../src/main/core/tools/types.js';
import type { ToolCall } from '../../../src/shared/messages.js';

function tool(name: string, readOnly: boolean, run: Tool['run'], timeoutMs = 5000): Tool {
  return {
    name,
    description: name,
    inputSchema: {
      type: 'object',
      properties: { id: { type: 'string' }, n: { type: 'integer', minimum: 1 } },
      required: ['id'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: readOnly },
    category: 'test',
    tier: readOnly ? 'safe' : 'guarded',
    timeoutMs,
    maxOutputBytes: 1000,
    source: 'builtin',
    run,
  };
}

/** Resolves once `count` parties have arrived: only concurrent runs can all get past it. */
function latch(count: number) {
  let arrived = 0;
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return async () => {
    arrived++;
    if (arrived === count) open();
    await opened;
  };
}

function setup() {
  const log: string[] = [];
  const registry = new ToolRegistry();
  const meet = latch(3);
  registry.register(
    tool('t/look', true, async (input) => {
      log.push(`start ${input.id}`);
      await meet();
      log.push(`end ${input.id}`);
      return { content: `looked ${input.id}` };
    }),
  );
  registry.register(
    tool('t/change', false, async (input) => {
      log.push(`start ${input.id}`);
      await new Promise((r) => setImmediate(r));
      log.push(`end ${input.id}`);
      return { content: `changed ${input.id}` };
    }),
  );
  return { log, registry };
}

const calls = (...specs: Array<[string, Record<string, unknown>]>): ToolCall[] =>
  specs.map(([name, input], i) => ({ id: `c${i}`, name, input }));

describe('executeToolCalls', () => {
  it('runs read-only calls together and side effects alone, in order, results in call order', async () => {
    const { log, registry } = setup();
    const results = await executeToolCalls(
      calls(
        ['t/change', { id: 'w1' }],
        ['t/look', { id: 'r1' }],
        ['t/look', { id: 'r2' }],
        ['t/look', { id: 'r3' }],
        ['t/change', { id: 'w2' }],
      ),
      { registry, allow: ['t/*'], workspace: '/tmp' },
    );
    // The three reads all started before any ended: the latch only opens for concurrent runs.
    expect(log).toEqual([
      'start w1',
      'end w1',
      'start r1',
      'start r2',
      'start r3',
      'end r1',
      'end r2',
      'end r3',
      'start w2',
      'end w2',
    ]);
    expect(results.map((r) => [r.toolUseId, r.content])).toEqual([
      ['c0', 'changed w1'],
      ['c1', 'looked r1'],
      ['c2', 'looked r2'],
      ['c3', 'looked r3'],
      ['c4', 'changed w2'],
    ]);
    expect(results.every((r) => r.isError === undefined)).toBe(true);
  });

  it('answers invalid arguments and unknown tools with structured errors, never running them', async () => {
    const { log, registry } = setup();
    const results = await executeToolCalls(
      calls(['t/change', { id: 7, n: 0, extra: true }], ['t/nope', { id: 'x' }], ['x/hidden', {}]),
      { registry, allow: ['t/change'], workspace: '/tmp' },
    );
    expect(log).toEqual([]);
    expect(results.every((r) => r.isError)).toBe(true);
    const invalid = JSON.parse(results[0]?.content as string);
    expect(invalid).toMatchObject({ error: 'invalid_arguments', tool: 't/change' });
    expect(invalid.violations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          path: '/id',
          schemaPath: '#/properties/id/type',
          keyword: 'type',
        }),
        expect.objectContaining({
          path: '/n',
          schemaPath: '#/properties/n/minimum',
          keyword: 'minimum',
        }),
        expect.objectContaining({ path: '', keyword: 'additionalProperties' }),
      ]),
    );
    expect(JSON.parse(results[1]?.content as string)).toEqual({
      error: 'unknown_tool',
      tool: 't/nope',
      available: ['t/change'],
    });
    // t/look exists but this agent may not see it.
    expect(JSON.parse(results[2]?.content as string).error).toBe('unknown_tool');
  });

  it('asks beforeRun after validation and reports a denial as the result', async () => {
    const { log, registry } = setup();
    const asked: string[] = [];
    const results = await executeToolCalls(
      calls(['t/change', { id: 'a' }], ['t/change', { id: 'b' }], ['t/change', { n: 2 }]),
      {
        registry,
        allow: ['t/*'],
        workspace: '/tmp',
        beforeRun: async ({ call, tool }) => {
          asked.push(`${tool.name} ${call.input.id}`);
          return call.input.id === 'b' ? { deny: 'not b' } : 'allow';
        },
      },
    );
    expect(asked).toEqual(['t/change a', 't/change b']);
    expect(log).toEqual(['start a', 'end a']);
    expect(JSON.parse(results[1]?.content as string)).toEqual({
      error: 'denied',
      tool: 't/change',
      reason: 'not b',
    });
    expect(results[2]?.isError).toBe(true);
  });

  it('times out a tool that ignores its signal, and runs through an injected executor', async () => {
    const registry = new ToolRegistry();
    registry.register(tool('t/hang', true, () => new Promise(() => undefined), 50));
    registry.register(tool('t/fine', true, async () => ({ content: 'x'.repeat(5000) })));
    const seen: string[] = [];
    const executor: ToolExecutor = {
      run: (t, input, context) => {
        seen.push(t.name);
        return t.run(input, context);
      },
      prepare: () => undefined,
    };
    const results = await executeToolCalls(
      calls(['t/hang', { id: '1' }], ['t/fine', { id: '2' }]),
      { registry, allow: ['t/*'], workspace: '/tmp', executor },
    );
    expect(seen.sort()).toEqual(['t/fine', 't/hang']);
    expect(results[0]).toMatchObject({ isError: true, content: 't/hang timed out after 50 ms' });
    expect(results[1]?.content).toMatch(
      /\[output truncated: 5000 bytes, showing the first 1000\]$/,
    );
  });

  it('reports cancellation instead of running once the turn is aborted', async () => {
    const { log, registry } = setup();
    const controller = new AbortController();
    controller.abort();
    const results = await executeToolCalls(calls(['t/change', { id: 'a' }]), {
      registry,
      allow: ['t/*'],
      workspace: '/tmp',
      signal: controller.signal,
    });
    expect(log).toEqual([]);
    expect(results[0]).toMatchObject({ isError: true, content: 't/change was cancelled' });
  });
});
