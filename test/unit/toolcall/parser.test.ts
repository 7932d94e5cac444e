import { describe, expect, it } from 'vitest';
import type { ToolInvoke } from '../../../src/main/core/toolcall/ast.js';
import {
  DEFAULT_MAX_DEPTH,
  isToolCall,
  parseToolCall,
  SEED_NAMESPACES,
} from '../../../src/main/core/toolcall/parser.js';
import { strip, syntaxError } from './helpers.js';

const call = (tool: string, params: Record<string, unknown> = {}, namespace?: string) => {
  const [ns, name] = tool.includes('/') ? tool.split('/') : [undefined, tool];
  return {
    kind: 'invoke',
    ...((namespace ?? ns) ? { namespace: namespace ?? ns } : {}),
    name,
    tool,
    params: Object.entries(params).map(([key, value]) => ({ key, value })),
  };
};
const str = (value: string) => ({ kind: 'string', value });
const int = (value: number) => ({ kind: 'integer', value });
const float = (value: number) => ({ kind: 'float', value });
const hex = (value: number) => ({ kind: 'hex', value });
const bool = (value: boolean) => ({ kind: 'boolean', value });
const arr = (...items: unknown[]) => ({ kind: 'array', items });
const ref = (scope: string, name: string) => ({ kind: 'reference', scope, name });

/** The single argument value of `@fs/x{v=<text>}`. */
const argValue = (text: string) =>
  strip((parseToolCall(`@fs/x{v=${text}}`) as ToolInvoke).params[0]?.value);

describe('parseToolCall: every production of the BNF', () => {
  it('<tool-invoke> with a <namespaced-tool> and a <param-list>', () => {
    expect(strip(parseToolCall('@fs/read{path="/etc/passwd";offset=0;limit=100}'))).toEqual(
      call('fs/read', { path: str('/etc/passwd'), offset: int(0), limit: int(100) }),
    );
  });

  it('<tool-name> as a bare <identifier>', () => {
    expect(strip(parseToolCall('@ping{}'))).toEqual(call('ping'));
    expect(strip(parseToolCall('@a_b-9{}'))).toEqual(call('a_b-9'));
  });

  it('every <namespace> of the seed', () => {
    for (const ns of SEED_NAMESPACES) {
      expect(strip(parseToolCall(`@${ns}/t{}`))).toEqual(call(`${ns}/t`));
    }
  });

  it('the empty <param-list>', () => {
    expect(strip(parseToolCall('@fs/list{}'))).toEqual(call('fs/list'));
  });

  it('<tool-chain>', () => {
    expect(
      strip(parseToolCall('@fs/read{path="data.json"}->@data/transform{operation="parse_json"}')),
    ).toEqual({
      kind: 'chain',
      calls: [
        call('fs/read', { path: str('data.json') }),
        call('data/transform', { operation: str('parse_json') }),
      ],
    });
    const three = parseToolCall('@a{}->@b{}->@c{}');
    expect(strip(three)).toEqual({ kind: 'chain', calls: [call('a'), call('b'), call('c')] });
  });

  it('<tool-parallel> of one and of several calls', () => {
    expect(strip(parseToolCall('[@fs/read{path="a"}]'))).toEqual({
      kind: 'parallel',
      calls: [call('fs/read', { path: str('a') })],
    });
    expect(strip(parseToolCall('[@fs/read{path="a"},@net/http{url="u"},@ui/x{}]'))).toEqual({
      kind: 'parallel',
      calls: [
        call('fs/read', { path: str('a') }),
        call('net/http', { url: str('u') }),
        call('ui/x'),
      ],
    });
  });

  it('<string-literal> in both quotes, with escapes and any Unicode', () => {
    expect(argValue('"double"')).toEqual(str('double'));
    expect(argValue("'single'")).toEqual(str('single'));
    expect(argValue('""')).toEqual(str(''));
    expect(argValue(`"it's"`)).toEqual(str("it's"));
    expect(argValue(`'say "hi"'`)).toEqual(str('say "hi"'));
    expect(argValue(String.raw`"a\"b\\c\/d\n\r\t\b\f\u00e9\'"`)).toEqual(
      str('a"b\\c/d\n\r\t\b\f\u00e9\''),
    );
    expect(argValue('"héllo 😀 ;}"')).toEqual(str('héllo 😀 ;}'));
  });

  it('<integer>, <float> and <hex>', () => {
    expect(argValue('42')).toEqual(int(42));
    expect(argValue('-7')).toEqual(int(-7));
    expect(argValue('007')).toEqual(int(7));
    expect(argValue('-0')).toEqual(int(0));
    expect(argValue('3.25')).toEqual(float(3.25));
    expect(argValue('-0.5')).toEqual(float(-0.5));
    expect(argValue('0x1F')).toEqual(hex(31));
    expect(argValue('0xdeadBEEF')).toEqual(hex(0xdeadbeef));
    expect(argValue('9007199254740991')).toEqual(int(Number.MAX_SAFE_INTEGER));
  });

  it('<boolean>: true, false, yes, no', () => {
    expect(argValue('true')).toEqual(bool(true));
    expect(argValue('yes')).toEqual(bool(true));
    expect(argValue('false')).toEqual(bool(false));
    expect(argValue('no')).toEqual(bool(false));
  });

  it('<array>, nested and mixed', () => {
    expect(argValue('("status")')).toEqual(arr(str('status')));
    expect(argValue('(1,2.5,0x2,no,"s",$ctx.x)')).toEqual(
      arr(int(1), float(2.5), hex(2), bool(false), str('s'), ref('ctx', 'x')),
    );
    expect(argValue('((1),((2)))')).toEqual(arr(arr(int(1)), arr(arr(int(2)))));
  });

  it('<reference> of every <reference-type>', () => {
    expect(argValue('$prev.result')).toEqual(ref('prev', 'result'));
    expect(argValue('$ctx.working_dir')).toEqual(ref('ctx', 'working_dir'));
    expect(argValue('$env.HOME')).toEqual(ref('env', 'HOME'));
    expect(argValue('$self.path-2')).toEqual(ref('self', 'path-2'));
  });

  it('keys that spell booleans or scopes are plain <param-key>s', () => {
    expect(strip(parseToolCall('@fs/x{true=no;prev=1}'))).toEqual(
      call('fs/x', { true: bool(false), prev: int(1) }),
    );
  });

  it('whitespace between tokens, on several lines', () => {
    const text = '[\n  @fs/read { path = "a" ; limit = 5 } ,\r\n\t@fs/list{ }\n]\n';
    expect(strip(parseToolCall(text))).toEqual({
      kind: 'parallel',
      calls: [call('fs/read', { path: str('a'), limit: int(5) }), call('fs/list')],
    });
  });

  it('the seed examples', () => {
    for (const text of [
      '@fs/read{path="/etc/passwd";offset=0;limit=100}',
      '@net/http{url="https://api.example.com/data";method="GET"}',
      '@fs/read{path="data.json"}->@data/transform{operation="parse_json"}',
      '@fs/write{path="output.txt";content=$prev.result}',
      '@sys/exec{command="git";args=("status");cwd=$ctx.working_dir}',
    ]) {
      expect(isToolCall(text)).toBe(true);
    }
  });

  it('records source spans (line, column, offset) on every node', () => {
    const program = parseToolCall('@a{}->\n  @fs/read{path="x";n=(1, 2)}');
    expect(program.kind).toBe('chain');
    if (program.kind !== 'chain') return;
    expect(program.span).toEqual({
      start: { line: 1, column: 1, offset: 0 },
      end: { line: 2, column: 30, offset: 36 },
    });
    const read = program.calls[1] as ToolInvoke;
    expect(read.span.start).toEqual({ line: 2, column: 3, offset: 9 });
    const [path, n] = read.params;
    expect(path?.keySpan).toEqual({
      start: { line: 2, column: 12, offset: 18 },
      end: { line: 2, column: 16, offset: 22 },
    });
    expect(path?.value.span).toEqual({
      start: { line: 2, column: 17, offset: 23 },
      end: { line: 2, column: 20, offset: 26 },
    });
    expect(n?.span).toEqual({
      start: { line: 2, column: 21, offset: 27 },
      end: { line: 2, column: 29, offset: 35 },
    });
    expect(n?.value.kind === 'array' && n.value.items[1]?.span.start).toEqual({
      line: 2,
      column: 27,
      offset: 33,
    });
  });

  it('counts columns in code points, so an emoji is one column', () => {
    const e = syntaxError(() => parseToolCall('@fs/x{a="😀😀";b}'));
    expect([e.line, e.column]).toEqual([1, 15]);
  });

  it('accepts custom namespaces when asked', () => {
    expect(isToolCall('@mcp/x{}')).toBe(false);
    expect(isToolCall('@mcp/x{}', { namespaces: ['mcp'] })).toBe(true);
    expect(isToolCall('@memory/search{query="q"}')).toBe(true);
  });
});

describe('parseToolCall: every error path, with exact line and column', () => {
  const cases: [string, number, number, string, string[]?][] = [
    [
      '',
      1,
      1,
      "expected '@tool{' or '[' at start of tool call, found end of input",
      ["'@tool{'", "'['"],
    ],
    ['hello', 1, 1, "expected '@tool{' or '[' at start of tool call, found 'hello'"],
    ['{"name":"fs/read"}', 1, 1, "expected '@tool{' or '[' at start of tool call, found '{'"],
    ['@', 1, 2, "expected tool name after '@', found end of input"],
    ['@ fs/read{}', 1, 2, "expected tool name after '@', found ' '"],
    ['@9{}', 1, 2, "expected tool name after '@', found '9'"],
    ['@fs/{}', 1, 5, "expected tool name after '/', found '{'"],
    [
      '@foo/bar{}',
      1,
      2,
      "unknown namespace 'foo' (expected 'fs', 'net', 'sys', 'code', 'data', 'ui' or 'memory')",
    ],
    ['@fs/read', 1, 9, "expected '{' after tool name 'fs/read', found end of input", ["'{'"]],
    ['@fs/read(path="a")', 1, 9, "expected '{' after tool name 'fs/read', found '('"],
    [
      '@fs/read{path="a"=1}',
      1,
      18,
      "expected ';' or '}' after argument value, found '='",
      ["';'", "'}'"],
    ],
    ['@fs/read{path="a";}', 1, 19, "expected argument name after ';', found '}'"],
    ['@fs/read{;}', 1, 10, "expected argument name or '}' after '{', found ';'"],
    ['@fs/read{path}', 1, 14, "expected '=' after argument name 'path', found '}'"],
    [
      '@fs/read{path=}',
      1,
      15,
      "expected a value (string, number, boolean, array or $reference) for argument 'path', found '}'",
    ],
    [
      '@fs/read{path=maybe}',
      1,
      15,
      "expected a value (string, number, boolean, array or $reference) for argument 'path', found 'maybe'",
    ],
    ['@fs/read{a=1;a=2}', 1, 14, "duplicate argument 'a'"],
    ['@fs/read{a=1', 1, 13, "expected ';' or '}' after argument value, found end of input"],
    ['@fs/read{a="x}', 1, 15, 'unterminated string: expected closing ", found end of input'],
    ["@fs/read{a='x}", 1, 15, "unterminated string: expected closing ', found end of input"],
    ['@fs/read{a="x\ny"}', 1, 14, "control character in string (use an escape): '\\n'"],
    ['@fs/read{a="\\q"}', 1, 13, "invalid escape '\\\\q'"],
    ['@fs/read{a="\\u12G4"}', 1, 13, "invalid \\u escape: expected 4 hex digits, found '12G4'"],
    ['@fs/read{a=-}', 1, 13, "expected digit after '-', found '}'"],
    ['@fs/read{a=1.}', 1, 14, "expected digit after '.', found '}'"],
    ['@fs/read{a=.5}', 1, 12, "unexpected character '.'"],
    ['@fs/read{a=0x}', 1, 14, "expected hex digit after '0x', found '}'"],
    ['@fs/read{a=0X1}', 1, 13, "unexpected character after number: 'X'"],
    ['@fs/read{a=1e5}', 1, 13, "unexpected character after number: 'e'"],
    ['@fs/read{a=1.5.2}', 1, 15, "unexpected character after number: '.'"],
    ['@fs/read{a=-0x1}', 1, 14, "unexpected character after number: 'x'"],
    ['@fs/read{a=9007199254740992}', 1, 12, "number out of range: '9007199254740992'"],
    ['@fs/read{a=0x20000000000000}', 1, 12, "number out of range: '0x20000000000000'"],
    [`@fs/read{a=${'9'.repeat(400)}.0}`, 1, 12, `number out of range: '${'9'.repeat(24)}…'`],
    ['@fs/read{a=$}', 1, 13, "expected 'prev', 'ctx', 'env' or 'self' after '$', found '}'"],
    ['@fs/read{a=$foo.x}', 1, 13, "expected 'prev', 'ctx', 'env' or 'self' after '$', found 'foo'"],
    ['@fs/read{a=$prev}', 1, 17, "expected '.' after '$prev', found '}'"],
    ['@fs/read{a=$prev.}', 1, 18, "expected a name after '$prev.', found '}'"],
    ['@fs/read{a=$prev.x.y}', 1, 19, "unexpected character '.'"],
    [
      '@fs/read{a=()}',
      1,
      13,
      "expected a value (string, number, boolean, array or $reference) after '(', found ')'",
    ],
    [
      '@fs/read{a=(1,)}',
      1,
      15,
      "expected a value (string, number, boolean, array or $reference) after ',', found ')'",
    ],
    ['@fs/read{a=(1 2)}', 1, 15, "expected ',' or ')' after array item, found '2'"],
    ['@fs/read{a=(1}', 1, 14, "expected ',' or ')' after array item, found '}'"],
    [
      '@fs/read{a=[1]}',
      1,
      12,
      "expected a value (string, number, boolean, array or $reference) for argument 'a', found '['",
    ],
    ['@a{}->', 1, 7, "expected '@tool{' after '->', found end of input"],
    ['@a{}->[@b{}]', 1, 7, "expected '@tool{' after '->', found '['"],
    ['@a{}-@b{}', 1, 6, "expected digit after '-', found '@'"],
    ['@a{} @b{}', 1, 6, "expected '->' or end of input after tool call, found '@b'"],
    ['@a{};', 1, 5, "expected '->' or end of input after tool call, found ';'"],
    ['[]', 1, 2, "expected '@tool{' after '[', found ']'"],
    ['[@a{},]', 1, 7, "expected '@tool{' after ',', found ']'"],
    ['[@a{};@b{}]', 1, 6, "expected ',' or ']' after call in parallel group, found ';'"],
    ['[@a{}', 1, 6, "expected ',' or ']' after call in parallel group, found end of input"],
    ['[@a{}]->@b{}', 1, 7, "expected end of input after tool call, found '->'"],
    ['[[@a{}]]', 1, 2, "expected '@tool{' after '[', found '['"],
    ['@a{}\n\n  % ', 3, 3, "unexpected character '%'"],
    [
      '@fs/read{\n  path="a"\n  limit=1\n}',
      3,
      3,
      "expected ';' or '}' after argument value, found 'limit'",
    ],
    ['@fs/read{a=\u00e9}', 1, 12, "unexpected character 'é'"],
  ];
  it.each(cases)('%j fails at %i:%i', (text, line, column, detail, expected) => {
    const e = syntaxError(() => parseToolCall(text));
    expect(e.detail).toBe(detail);
    expect([e.line, e.column]).toEqual([line, column]);
    expect(e.message).toBe(`${line}:${column}: ${detail}`);
    if (expected) expect(e.expected).toEqual(expected);
  });

  it('refuses input over the length limit', () => {
    const e = syntaxError(() => parseToolCall(`@fs/read{a="${'x'.repeat(70_000)}"}`));
    expect(e.detail).toMatch(/limit is 65536/);
    expect([e.line, e.column]).toEqual([1, 1]);
    expect(isToolCall('@a{b="xxxx"}', { maxLength: 8 })).toBe(false);
  });

  it('refuses arrays nested deeper than the depth limit, at the offending paren', () => {
    const ok = `@a{v=${'('.repeat(DEFAULT_MAX_DEPTH)}1${')'.repeat(DEFAULT_MAX_DEPTH)}}`;
    expect(isToolCall(ok)).toBe(true);
    const deep = `@a{v=${'('.repeat(DEFAULT_MAX_DEPTH + 1)}1${')'.repeat(DEFAULT_MAX_DEPTH + 1)}}`;
    const e = syntaxError(() => parseToolCall(deep));
    expect(e.detail).toBe('arrays nested deeper than 32');
    expect([e.line, e.column]).toEqual([1, 6 + DEFAULT_MAX_DEPTH]);
    // Far deeper than any stack allows: still the typed error, never a RangeError.
    expect(syntaxError(() => parseToolCall(`@a{v=${'('.repeat(60_000)}`)).detail).toBe(
      'arrays nested deeper than 32',
    );
  });

  it('refuses a non-string input with the typed error', () => {
    expect(syntaxError(() => parseToolCall(42 as unknown as string)).detail).toBe(
      'input is not a string',
    );
  });
});
