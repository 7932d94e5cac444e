import { describe, expect, it } from 'vitest';
import { wireToolName } from '../../../src/main/core/models/tool-names.js';
import { capOutput, ToolRegistry } from '../../../src/main/core/tools/registry.js';
import type { Tool, ToolExecutor } from '../../../src/main/core/tools/types.js';

const tool = (name: string, extra: Partial<Tool> = {}): Tool => ({
  name,
  description: 'd',
  inputSchema: { type: 'object' },
  annotations: { readOnlyHint: true },
  category: 'test',
  tier: 'safe',
  timeoutMs: 1000,
  maxOutputBytes: 1000,
  source: 'builtin',
  run: async () => ({ content: 'ok' }),
  ...extra,
});

describe('tool registry', () => {
  it('knows tools by canonical name only, refusing wire-name collisions and bad names', () => {
    const registry = new ToolRegistry();
    registry.register(tool('fs/read'));
    expect(wireToolName('fs/read')).toBe('fs__read');
    expect(registry.get('fs/read')?.name).toBe('fs/read');
    expect(registry.get('fs__read')).toBeUndefined();
    registry.register(tool('fs__read'.replace('__', '_')));
    expect(() => registry.register(tool('Fs/Read'))).toThrow('is not a tool name');
    expect(() => registry.register(tool(`a/${'b'.repeat(70)}`))).toThrow('too long');
    const other = new ToolRegistry();
    other.register(tool('a/b'));
    expect(() => other.register({ ...tool('a__b'), name: 'a__b' })).toThrow(
      'would share the model name a__b',
    );
  });

  it('shows a model only what the allow list names', () => {
    const registry = new ToolRegistry();
    for (const name of ['fs/read', 'fs/write', 'sys/exec', 'net/fetch'])
      registry.register(tool(name));
    expect(registry.modelTools(['fs/*']).map((t) => t.name)).toEqual(['fs/read', 'fs/write']);
    expect(registry.modelTools(['fs/read', 'net/*']).map((t) => t.name)).toEqual([
      'fs/read',
      'net/fetch',
    ]);
    expect(registry.modelTools([])).toEqual([]);
    expect(registry.facts('sys/exec')).toMatchObject({
      name: 'sys/exec',
      tier: 'safe',
      category: 'test',
    });
  });

  it('refuses arguments whose numbers are not finite (a model wrote 8E4668883820750250)', async () => {
    const registry = new ToolRegistry();
    registry.register(
      tool('test/pick', {
        source: 'mcp',
        inputSchema: {
          type: 'object',
          properties: { n: { type: 'integer' }, x: { type: 'number' } },
        },
      }),
    );
    const check = (input: Record<string, unknown>) =>
      registry.check({ id: 'c1', name: 'test/pick', input }, ['test/pick']);
    expect('error' in (await check({ n: 3, x: 0.5 }))).toBe(false);
    for (const input of [
      { n: Number.POSITIVE_INFINITY },
      { x: JSON.parse('-1e999') },
      { x: Number.NaN },
    ]) {
      const checked = await check(input);
      expect('error' in checked && checked.error.content, JSON.stringify(input)).toContain(
        'invalid_arguments',
      );
    }
  });

  it('caps output and says how big it was', () => {
    expect(capOutput('short', 10)).toBe('short');
    expect(capOutput('é'.repeat(10), 5)).toBe(
      'éé\n[output truncated: 20 bytes, showing the first 5]',
    );
  });

  it('turns a thrown error and a deadline into results', async () => {
    const registry = new ToolRegistry();
    registry.register(
      tool('t/boom', {
        run: async () => {
          throw new Error('kaput');
        },
      }),
    );
    registry.register(
      tool('t/slow', {
        timeoutMs: 50,
        run: (_, c) =>
          new Promise((r) => c.signal.addEventListener('abort', () => r({ content: 'late' }))),
      }),
    );
    const host = registry.host({ allow: ['**'], workspace: '/tmp' });
    const ctx = { signal: new AbortController().signal, runId: 'r' as never, stepId: 's' as never };
    expect(await host.execute({ id: 'c', name: 't/boom', input: {} }, ctx)).toEqual({
      content: 't/boom failed: kaput',
      isError: true,
    });
    expect(await host.execute({ id: 'c', name: 't/slow', input: {} }, ctx)).toEqual({
      content: 'late',
      isError: undefined,
    });
  });

  it('times out a tool that ignores its signal, runs through the injected executor, caps output', async () => {
    const registry = new ToolRegistry();
    registry.register(tool('t/hang', { timeoutMs: 50, run: () => new Promise(() => undefined) }));
    registry.register(tool('t/loud', { run: async () => ({ content: 'x'.repeat(5000) }) }));
    const seen: string[] = [];
    const executor: ToolExecutor = {
      run: (t, input, context) => {
        seen.push(t.name);
        return t.run(input, context);
      },
      prepare: () => undefined,
    };
    const host = registry.host({ allow: ['t/*'], workspace: '/tmp', executor });
    const ctx = { signal: new AbortController().signal, runId: 'r' as never, stepId: 's' as never };
    expect(await host.execute({ id: 'c1', name: 't/hang', input: {} }, ctx)).toMatchObject({
      isError: true,
      content: 't/hang timed out after 50 ms',
    });
    const loud = await host.execute({ id: 'c2', name: 't/loud', input: {} }, ctx);
    expect(loud.content).toMatch(/\[output truncated: 5000 bytes, showing the first 1000\]$/);
    expect(seen).toEqual(['t/hang', 't/loud']);
  });

  it('says a call was cancelled when the turn is aborted while it runs', async () => {
    const registry = new ToolRegistry();
    const turn = new AbortController();
    registry.register(
      tool('t/wait', {
        run: (_, c) =>
          new Promise((_, reject) => {
            c.signal.addEventListener('abort', () => reject(new Error('stopped')));
            turn.abort();
          }),
      }),
    );
    const host = registry.host({ allow: ['t/*'], workspace: '/tmp' });
    const ctx = { signal: turn.signal, runId: 'r' as never, stepId: 's' as never };
    const pending = host.execute({ id: 'c', name: 't/wait', input: {} }, ctx);
    expect(await pending).toEqual({ content: 't/wait was cancelled', isError: true });
  });

  it('refuses unknown and hidden tools by name, with what may be called, and never runs them', async () => {
    const registry = new ToolRegistry();
    const ran: string[] = [];
    for (const name of ['t/change', 't/look']) {
      const run = async () => {
        ran.push(name);
        return { content: 'ran' };
      };
      registry.register(tool(name, { run }));
    }
    const host = registry.host({ allow: ['t/change'], workspace: '/tmp' });
    const ctx = { signal: new AbortController().signal, runId: 'r' as never, stepId: 's' as never };
    for (const name of ['t/nope', 't/look']) {
      const refused = await host.validate({ id: 'c', name, input: {} });
      expect(JSON.parse(String(refused?.content))).toEqual({
        error: 'unknown_tool',
        tool: name,
        available: ['t/change'],
      });
      expect(await host.execute({ id: 'c', name, input: {} }, ctx)).toMatchObject({
        isError: true,
      });
    }
    expect(ran).toEqual([]);
  });
});
