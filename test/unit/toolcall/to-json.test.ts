import { describe, expect, it } from 'vitest';
import { ToolCallEncodeError } from '../../../src/main/core/toolcall/errors.js';
import { extractToolCalls, toNativeCalls } from '../../../src/main/core/toolcall/index.js';
import { parseToolCall } from '../../../src/main/core/toolcall/parser.js';
import { formatToolCall } from '../../../src/main/core/toolcall/print.js';
import { formatNativeToolCall, fromNativeCalls } from '../../../src/main/core/toolcall/to-json.js';
import { strip, syntaxError } from './helpers.js';

describe('native JSON conversion', () => {
  it('converts a program to native calls and back', () => {
    const program = parseToolCall(
      '[@fs/read{path="a";limit=5},@sys/exec{command="git";args=("status");x=1.5;y=0x10;z=yes}]',
    );
    const native = toNativeCalls(program);
    expect(native).toEqual([
      { name: 'fs/read', arguments: { path: 'a', limit: 5 } },
      { name: 'sys/exec', arguments: { command: 'git', args: ['status'], x: 1.5, y: 16, z: true } },
    ]);
    expect(formatToolCall(fromNativeCalls(native))).toBe(
      '[@fs/read{path="a";limit=5},@sys/exec{command="git";args=("status");x=1.5;y=16;z=true}]',
    );
    expect(formatNativeToolCall(native[0] as never)).toBe(
      '<tool_call>{"name":"fs/read","arguments":{"path":"a","limit":5}}</tool_call>',
    );
    expect(strip(fromNativeCalls([{ name: 'ping', arguments: {} }]))).toEqual({
      kind: 'invoke',
      name: 'ping',
      tool: 'ping',
      params: [],
    });
  });

  it('refuses what the language cannot express', () => {
    expect(() => toNativeCalls(parseToolCall('@a{x=$prev.y}'))).toThrow(ToolCallEncodeError);
    for (const args of [{ a: null }, { a: {} }, { a: [] }, { 'bad key': 1 }, { a: Number.NaN }]) {
      expect(() => fromNativeCalls([{ name: 'fs/x', arguments: args }])).toThrow(
        ToolCallEncodeError,
      );
    }
    for (const name of ['bad/ns/x', 'foo/bar', '9x', '', 'fs/']) {
      expect(() => fromNativeCalls([{ name, arguments: {} }])).toThrow(ToolCallEncodeError);
    }
    expect(() => fromNativeCalls([])).toThrow(ToolCallEncodeError);
  });
});

describe('extractToolCalls', () => {
  it('finds @-lines, fenced toolcall blocks and <tool_call> JSON, leaving the prose', () => {
    const reply = [
      'Let me look.',
      '@fs/read{path="a.txt"}',
      'Then:',
      '```toolcall',
      '[@fs/list{path="."},',
      ' @fs/read{path="b"}]',
      '```',
      'and <tool_call>{"name":"sys/exec","arguments":{"command":"ls"}}</tool_call> done.',
      'Email me @ noon is prose? No: only column 1 counts.',
    ].join('\n');
    const { text, programs } = extractToolCalls(reply);
    expect(programs.map(formatToolCall)).toEqual([
      '@fs/read{path="a.txt"}',
      '[@fs/list{path="."},@fs/read{path="b"}]',
      '@sys/exec{command="ls"}',
    ]);
    expect(text).toBe(
      'Let me look.\n\nThen:\n\nand  done.\nEmail me @ noon is prose? No: only column 1 counts.',
    );
    // Positions are relative to the whole reply.
    expect(programs[0]?.span.start).toEqual({ line: 2, column: 1, offset: 13 });
    expect(programs[1]?.kind === 'parallel' && programs[1].calls[1]?.span.start.line).toBe(6);
  });

  it('returns plain prose untouched', () => {
    expect(extractToolCalls('  just an answer  ')).toEqual({
      text: 'just an answer',
      programs: [],
    });
  });

  it('reports a broken call at its line and column in the reply (no fallback)', () => {
    const e = syntaxError(() => extractToolCalls('Sure.\n\n@fs/read{path="a"=1}'));
    expect([e.line, e.column]).toEqual([3, 18]);
    expect(e.message).toBe("3:18: expected ';' or '}' after argument value, found '='");
    const fenced = syntaxError(() => extractToolCalls('x\n```toolcall\n@a{}\n->\n```'));
    expect([fenced.line, fenced.column]).toEqual([4, 3]);
    const json = syntaxError(() => extractToolCalls('ok <tool_call>{"name":</tool_call>'));
    expect([json.line, json.column]).toEqual([1, 15]);
    expect(
      syntaxError(() =>
        extractToolCalls('<tool_call>{"name":"a","arguments":{"x":null}}</tool_call>'),
      ).detail,
    ).toMatch(/no null/);
  });
});
