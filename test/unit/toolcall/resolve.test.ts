import { describe, expect, it } from 'vitest';
import type { ToolInvoke } from '../../../src/main/core/toolcall/ast.js';
import { ToolCallReferenceError } from '../../../src/main/core/toolcall/errors.js';
import {
  checkReferences,
  planToolCall,
  type ResolveContext,
  resolveCall,
} from '../../../src/main/core/toolcall/index.js';
import { parseToolCall } from '../../../src/main/core/toolcall/parser.js';
import { type ResolvedCall, runToolCall } from '../../../src/main/core/toolcall/resolve.js';

const base: ResolveContext = {
  ctx: { working_dir: '/work', list: [1, 2], obj: { a: 1 } },
  env: {
    allow: ['HOME', 'LANG', 'API_TOKEN', 'UNSET'],
    values: { HOME: '/home/u', LANG: 'C', API_TOKEN: 't0k', PATH: '/bin', MIXED: 'x' },
  },
  isSecretName: (name) => name.endsWith('_TOKEN') || name === 'OPENAI_API_KEY',
  secretValues: ['sk-secret-123', ''],
};
const one = (text: string) => parseToolCall(text) as ToolInvoke;

function refusal(fn: () => unknown): ToolCallReferenceError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ToolCallReferenceError);
    return error as ToolCallReferenceError;
  }
  throw new Error('expected a ToolCallReferenceError');
}

describe('resolveCall', () => {
  it('turns literals into plain JSON arguments', () => {
    expect(resolveCall(one('@fs/read{path="a";n=0x10;f=1.5;b=no;l=(1,("x"))}'), base)).toEqual({
      tool: 'fs/read',
      args: { path: 'a', n: 16, f: 1.5, b: false, l: [1, ['x']] },
    });
  });

  it('resolves $ctx, $self (earlier args), $prev and granted $env', () => {
    const call = one(
      '@sys/exec{cwd=$ctx.working_dir;dir=$self.cwd;in=$prev.result;home=$env.HOME;xs=($ctx.list,$env.LANG)}',
    );
    expect(resolveCall(call, base, { result: { result: 'prior' } })).toEqual({
      tool: 'sys/exec',
      args: { cwd: '/work', dir: '/work', in: 'prior', home: '/home/u', xs: [[1, 2], 'C'] },
    });
  });

  it('copies referenced values, so tools never share the caller’s objects', () => {
    const { args } = resolveCall(one('@a{o=$ctx.obj}'), base);
    expect(args.o).toEqual({ a: 1 });
    expect(args.o).not.toBe(base.ctx?.obj);
  });

  it('refuses $env outside the allow list, even when set', () => {
    const e = refusal(() => resolveCall(one('@a{p=$env.PATH}'), base));
    expect(e.reason).toBe('env-not-allowed');
    expect(e.reference).toBe('$env.PATH');
    expect(e.message).toBe('1:6: $env.PATH: the policy does not grant this variable');
    expect([e.line, e.column]).toEqual([1, 6]);
    expect(
      refusal(() => resolveCall(one('@a{p=$env.HOME}'), { ...base, env: undefined })).reason,
    ).toBe('env-not-allowed');
  });

  it('never resolves a secret’s name, even when the allow list grants it', () => {
    const e = refusal(() => resolveCall(one('@a{t=$env.API_TOKEN}'), base));
    expect(e.reason).toBe('secret-name');
    expect(e.message).not.toContain('t0k');
    expect(refusal(() => resolveCall(one('@a{t=$env.OPENAI_API_KEY}'), base)).reason).toBe(
      'secret-name',
    );
  });

  it('refuses any reference whose value contains a secret value', () => {
    const ctx = { ...base, ctx: { leak: 'key=sk-secret-123', nested: [{ k: ['sk-secret-123'] }] } };
    expect(refusal(() => resolveCall(one('@a{x=$ctx.leak}'), ctx)).reason).toBe('secret-value');
    expect(refusal(() => resolveCall(one('@a{x=$ctx.nested}'), ctx)).reason).toBe('secret-value');
    const env = { ...base, env: { allow: ['MIXED'], values: { MIXED: 'sk-secret-123' } } };
    expect(refusal(() => resolveCall(one('@a{x=$env.MIXED}'), env)).reason).toBe('secret-value');
    expect(
      refusal(() => resolveCall(one('@a{x=$prev.out}'), base, { result: { out: 'sk-secret-123' } }))
        .reason,
    ).toBe('secret-value');
    // The empty secret value does not match everything.
    expect(resolveCall(one('@a{x=$env.LANG}'), base).args.x).toBe('C');
  });

  it('refuses missing names, unset variables and non-JSON values', () => {
    expect(refusal(() => resolveCall(one('@a{x=$ctx.nope}'), base)).reason).toBe('missing');
    expect(refusal(() => resolveCall(one('@a{x=$ctx.toString}'), base)).reason).toBe('missing');
    expect(refusal(() => resolveCall(one('@a{x=$env.UNSET}'), base)).reason).toBe('missing');
    expect(
      refusal(() => resolveCall(one('@a{x=$ctx.f}'), { ...base, ctx: { f: () => 1 } })).reason,
    ).toBe('missing');
  });

  it('requires $self to name an earlier argument', () => {
    expect(refusal(() => resolveCall(one('@a{x=$self.y;y=1}'), base)).reason).toBe(
      'self-not-earlier',
    );
    expect(refusal(() => resolveCall(one('@a{x=$self.x}'), base)).reason).toBe('self-not-earlier');
    expect(refusal(() => resolveCall(one('@a{x=$self.zz}'), base)).reason).toBe('missing');
  });

  it('refuses $prev without a previous result or field', () => {
    expect(refusal(() => resolveCall(one('@a{x=$prev.r}'), base)).reason).toBe(
      'no-previous-result',
    );
    expect(refusal(() => resolveCall(one('@a{x=$prev.r}'), base, { result: 'text' })).reason).toBe(
      'missing',
    );
    expect(
      resolveCall(one('@a{x=$prev.r}'), { ...base, previous: { result: { r: 0 } } }).args.x,
    ).toBe(0);
  });
});

describe('planToolCall and runToolCall', () => {
  it('plans chains as sequential steps and groups as one parallel step', () => {
    const chain = parseToolCall('@a{}->@b{}');
    expect(planToolCall(chain).steps.map((s) => s.kind)).toEqual(['call', 'call']);
    const group = planToolCall(parseToolCall('[@a{},@b{}]'));
    expect(group.steps).toHaveLength(1);
    expect(group.steps[0]?.kind === 'parallel' && group.steps[0].calls.map((c) => c.tool)).toEqual([
      'a',
      'b',
    ]);
    expect(planToolCall(parseToolCall('@a{}')).steps).toHaveLength(1);
  });

  it('feeds each chain step the previous result through $prev', async () => {
    const seen: ResolvedCall[] = [];
    const results = await runToolCall(
      parseToolCall(
        '@fs/read{path="a"}->@data/parse{text=$prev.content}->@fs/write{n=$prev.count}',
      ),
      base,
      async (call) => {
        seen.push(call);
        return call.tool === 'fs/read' ? { content: 'abc' } : { count: 3 };
      },
    );
    expect(seen.map((c) => c.args)).toEqual([{ path: 'a' }, { text: 'abc' }, { n: 3 }]);
    expect(results).toEqual([{ content: 'abc' }, { count: 3 }, { count: 3 }]);
  });

  it('runs a parallel group concurrently', async () => {
    let running = 0;
    let peak = 0;
    const results = await runToolCall(
      parseToolCall('[@a{i=1},@b{i=2},@c{i=3}]'),
      base,
      async (call) => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
        return call.args.i;
      },
    );
    expect(results).toEqual([1, 2, 3]);
    expect(peak).toBe(3);
  });

  it('refuses bad references before the first call runs', async () => {
    const program = parseToolCall('@fs/read{path="a"}->@net/post{body=$prev.x;key=$env.API_TOKEN}');
    expect(() => checkReferences(program, base)).toThrow(ToolCallReferenceError);
    let ran = 0;
    await expect(
      runToolCall(program, base, async () => {
        ran++;
        return { x: 1 };
      }),
    ).rejects.toMatchObject({ reason: 'secret-name' });
    expect(ran).toBe(0);
  });
});
