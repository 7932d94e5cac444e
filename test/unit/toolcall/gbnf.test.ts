import { describe, expect, it } from 'vitest';
import { ToolCallEncodeError } from '../../../src/main/core/toolcall/errors.js';
import { gbnfLiteral } from '../../../src/main/core/toolcall/gbnf.js';
import { toolCallGbnf } from '../../../src/main/core/toolcall/index.js';

const read = {
  name: 'fs/read',
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string' },
      offset: { type: 'integer' },
      'bad key': { type: 'string' },
    },
    required: ['path'],
  },
};
const rules = (text: string) =>
  Object.fromEntries(
    text
      .trim()
      .split('\n')
      .map((line) => line.split(' ::= ') as [string, string]),
  );

describe('toolCallGbnf', () => {
  it('admits only the allowed tools, as literal alternatives, with schema keys in order', () => {
    const g = rules(toolCallGbnf([read, { name: 'ping' }]));
    expect(g.root).toBe('call');
    expect(g.call).toBe('chain | parallel');
    expect(g.invoke).toBe('tool-0 | tool-1');
    expect(g['tool-0']).toBe('"@fs/read{" t0-first0 "}"');
    expect(g['tool-1']).toBe('"@ping{" "}"');
    // path is required and first; offset optional after it; the non-identifier key is dropped.
    expect(g['t0-first0']).toBe('t0-p0 t0-rest1');
    expect(g['t0-rest1']).toBe('(";" t0-p1)?');
    expect(g['t0-p0']).toBe('"path=" t0-v0');
    expect(g['t0-v0']).toBe('string | ref');
    expect(g['t0-v1']).toBe('int | hex | ref');
    expect(g.chain).toBe('invoke ("->" invoke){0,3}');
    expect(g.parallel).toBe('"[" invoke ("," invoke){0,3} "]"');
  });

  it('makes all-optional argument lists optional and places separators between present ones', () => {
    const g = rules(
      toolCallGbnf([
        {
          name: 'net/fetch',
          inputSchema: {
            properties: {
              url: { type: 'string' },
              m: { enum: ['GET', 'HEAD'] },
              n: { type: 'array', items: { type: 'number' } },
            },
          },
        },
      ]),
    );
    expect(g['tool-0']).toBe('"@net/fetch{" t0-first0? "}"');
    expect(g['t0-first0']).toBe('t0-p0 t0-rest1 | t0-first1');
    expect(g['t0-first2']).toBe('t0-p2');
    expect(g['t0-v1']).toBe('"\\"GET\\"" | "\\"HEAD\\"" | ref');
    expect(g['t0-v2']).toBe('"(" t0-v2-i ("," t0-v2-i){0,7} ")" | ref');
    expect(g['t0-v2-i']).toBe('float | int | ref');
  });

  it('honours bounds, references, the text alternative and drops unused rules', () => {
    const text = toolCallGbnf([{ name: 'a', inputSchema: { properties: { x: {} } } }], {
      maxChain: 1,
      maxParallel: 0,
      maxString: 3,
      references: false,
      allowText: true,
    });
    const g = rules(text);
    expect(g.root).toBe('call | answer');
    expect(g.answer).toBe('[^@[\\x00] [^\\x00]*');
    expect(g.chain).toBe('invoke');
    expect(g.call).toBe('chain');
    expect(g.parallel).toBeUndefined();
    expect(g.ref).toBeUndefined();
    expect(g.string).toBe('"\\"" char{0,3} "\\""');
    expect(g['t0-p0']).toBe('"x=" value');
  });

  it('refuses tool names the parser would refuse', () => {
    expect(() => toolCallGbnf([])).toThrow(ToolCallEncodeError);
    expect(() => toolCallGbnf([{ name: 'foo/bar' }])).toThrow(ToolCallEncodeError);
    expect(() => toolCallGbnf([{ name: 'fs/read_file.v2' }])).toThrow(ToolCallEncodeError);
    expect(toolCallGbnf([{ name: 'mcp/x' }], { namespaces: ['mcp'] })).toContain('"@mcp/x{" "}"');
  });

  it('escapes GBNF literals', () => {
    expect(gbnfLiteral('a"b\\c\n\u0001')).toBe('"a\\"b\\\\c\\n\\x01"');
  });
});
