/**
 * Fuzz of everything that reads a model's (or a person's) tool calls: the compact language's
 * parser, typed input at the terminal, tool calls found in a model's text reply (lines, fences,
 * `<tool_call>` JSON), native JSON calls, and the JSON arguments of native tool calls. Random and
 * mutated inputs from a fresh seed each run (printed; PINCER_FUZZ_SEED replays it), plus the
 * pathological shapes a hostile model would pick: nesting far past the limit, inputs at the
 * size limit, thousands of calls in one reply. Each reader either answers or fails with its own
 * typed error; none throws anything else, and none hangs (the test timeout would catch it).
 */
import { describe, expect, it } from 'vitest';
import { readArgumentsText } from '../../../src/main/core/models/tool-arguments.js';
import {
  ToolCallEncodeError,
  ToolCallSyntaxError,
} from '../../../src/main/core/toolcall/errors.js';
import {
  extractToolCalls,
  readTypedInput,
  toNativeCalls,
} from '../../../src/main/core/toolcall/index.js';
import { DEFAULT_MAX_LENGTH, parseToolCall } from '../../../src/main/core/toolcall/parser.js';
import { formatToolCall } from '../../../src/main/core/toolcall/print.js';
import { fromNativeCalls, type NativeToolCall } from '../../../src/main/core/toolcall/to-json.js';
import { fuzzSeed, type Random, seededRandom } from '../../support/seeded-random.js';
import { Gen } from '../../unit/toolcall/gen.js';

const seed = fuzzSeed('tool-call');
const random = seededRandom(seed);
const gen = new Gen(() => random.next());

const PIECES = [
  '@fs/read{',
  '@sys/exec{',
  '}',
  '{',
  '(',
  ')',
  '[',
  ']',
  ',',
  ';',
  '=',
  '->',
  '$prev',
  '$env.HOME',
  '$ctx.x',
  '$self',
  '"',
  '\\',
  '\\u',
  '\\u{',
  '0x',
  '1e999',
  '-',
  '.',
  'true',
  'yes',
  '\n',
  '\r',
  '\t',
  ' ',
  '\u0000',
  '\ud800',
  '\udc00',
  '😀',
  '\u202e',
  '```toolcall\n',
  '```\n',
  '<tool_call>',
  '</tool_call>',
];

/** A valid program's text, or noise, or a valid one cut, spliced and salted with noise. */
function callText(r: Random): string {
  const valid = formatToolCall(gen.program());
  switch (r.int(4)) {
    case 0:
      return valid;
    case 1:
      return Array.from({ length: r.int(60) }, () => r.pick(PIECES)).join('');
    default: {
      let out = valid;
      for (let n = 1 + r.int(4); n > 0; n--) {
        const at = r.int(out.length + 1);
        const cut = r.int(4);
        out = out.slice(0, at) + (r.int(2) ? r.pick(PIECES) : '') + out.slice(at + cut);
      }
      return out;
    }
  }
}

/** JSON-like values, sometimes absurd: deep, wide, wrong types, odd names. */
function jsonValue(r: Random, depth = 0): unknown {
  switch (depth > 6 ? r.int(5) : r.int(9)) {
    case 0:
      return null;
    case 1:
      return r.int(2) === 0;
    case 2:
      return r.pick([0, -1, 1.5, 1e308, -0, Number.MAX_SAFE_INTEGER + 2]);
    case 3:
      return r.pick(['', 'x', '"', '\\', '\u0000', '😀', '$prev', '@fs/read{}', 'a'.repeat(300)]);
    case 4:
      return r.pick([[], {}, [null], { '': 1 }]);
    case 5:
      return Array.from({ length: r.int(4) }, () => jsonValue(r, depth + 1));
    case 6:
      return nest(r.pick([10, 31, 32, 33, 64, 65, 1000]));
    default:
      return Object.fromEntries(
        Array.from({ length: r.int(4) }, () => [
          r.pick(['path', 'command', 'args', '__proto__', 'constructor', '', 'a b', '$x']),
          jsonValue(r, depth + 1),
        ]),
      );
  }
}

function nest(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

function nativeCall(r: Random): NativeToolCall {
  const name = r.pick(['fs/read', 'sys/exec', 'read', 'fs/', '/x', 'a/b/c', '', 'FS/Read', 'é/x']);
  return (r.int(6) === 0 ? jsonValue(r) : { name, arguments: jsonValue(r) }) as NativeToolCall;
}

/** Runs `read`; anything thrown must be one of `allowed`. */
function onlyTyped(
  input: unknown,
  read: () => unknown,
  ...allowed: Array<new (...a: never[]) => Error>
) {
  try {
    read();
  } catch (error) {
    if (!allowed.some((type) => error instanceof type)) {
      throw new Error(`seed ${seed}: ${String(error)} for ${JSON.stringify(input)?.slice(0, 500)}`);
    }
  }
}

describe('tool-call readers under random and hostile input', () => {
  it('the parser and typed input throw nothing but ToolCallSyntaxError', () => {
    for (let i = 0; i < 1500; i++) {
      const text = callText(random);
      onlyTyped(text, () => parseToolCall(text), ToolCallSyntaxError);
      // Typed input returns its outcome as a value: nothing at all may be thrown.
      const typed = readTypedInput(text);
      expect(['message', 'calls', 'invalid']).toContain(typed.kind);
    }
  });

  it('a parsed program always converts to native calls and back', () => {
    for (let i = 0; i < 300; i++) {
      const program = parseToolCall(formatToolCall(gen.program()));
      onlyTyped(program, () => fromNativeCalls(toNativeCalls(program)), ToolCallEncodeError);
    }
  });

  it('native JSON calls throw nothing but ToolCallEncodeError', () => {
    for (let i = 0; i < 1500; i++) {
      const calls = Array.from({ length: 1 + random.int(3) }, () => nativeCall(random));
      onlyTyped(calls, () => fromNativeCalls(calls), ToolCallEncodeError);
    }
  });

  it('calls in a text reply throw nothing but ToolCallSyntaxError', () => {
    for (let i = 0; i < 800; i++) {
      const parts = Array.from({ length: 1 + random.int(5) }, () => {
        switch (random.int(4)) {
          case 0:
            return `prose ${random.pick(PIECES)} here`;
          case 1:
            return `\`\`\`toolcall\n${callText(random)}\n\`\`\``;
          case 2:
            return `<tool_call>${random.int(3) ? JSON.stringify(nativeCall(random)) : callText(random)}</tool_call>`;
          default:
            return callText(random);
        }
      });
      const reply = parts.join(random.pick(['\n', '\r\n', ' ', '']));
      onlyTyped(reply, () => extractToolCalls(reply), ToolCallSyntaxError);
    }
  });

  it('native tool-call arguments are read or refused with a reason, never thrown', () => {
    for (let i = 0; i < 1500; i++) {
      let text = JSON.stringify(jsonValue(random)) ?? '';
      if (random.int(2)) {
        const at = random.int(text.length + 1);
        text = text.slice(0, at) + random.pick(PIECES) + text.slice(at + random.int(3));
      }
      const read = readArgumentsText(text);
      if ('input' in read) expect(() => JSON.stringify(read.input)).not.toThrow();
      else expect(read.problem).toMatch(/^the arguments /);
    }
  });

  it('pathological shapes: nesting far past the limit, inputs at the size limit, many calls', () => {
    const room = DEFAULT_MAX_LENGTH - 40;
    const shapes = [
      `@fs/read{a=${'['.repeat(room)}}`,
      `@fs/read{a=${'['.repeat(room / 2)}${']'.repeat(room / 2)}}`,
      `@fs/read{a="${'\\'.repeat(room)}"}`,
      `@fs/read{a="${'x'.repeat(room)}`,
      `@fs/read{a=${'1'.repeat(room)}}`,
      `@fs/read{${'a=1,'.repeat(room / 4)}}`,
      `${'@fs/read{} -> '.repeat(room / 16)}@fs/read{}`,
      `[${'@fs/read{}, '.repeat(room / 12)}@fs/read{}]`,
      '@fs/read{'.repeat(room / 9),
      'x'.repeat(DEFAULT_MAX_LENGTH * 4),
    ];
    for (const text of shapes) {
      onlyTyped(text.slice(0, 80), () => parseToolCall(text), ToolCallSyntaxError);
      readTypedInput(text);
    }
    // Thousands of calls in one reply: positions are found in one pass, not one per call.
    const many = Array.from({ length: 20_000 }, (_, i) => `@fs/read{path="f${i}"}`).join('\n');
    expect(extractToolCalls(many).programs).toHaveLength(20_000);
    const native = `<tool_call>${JSON.stringify({ name: 'fs/read', arguments: { path: 'x' } })}</tool_call>`;
    expect(extractToolCalls(native.repeat(20_000)).programs).toHaveLength(20_000);
    // A native call nested 100 000 levels deep is refused as a typed error.
    const deep = `<tool_call>{"name":"fs/read","arguments":{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}}</tool_call>`;
    onlyTyped('deep native call', () => extractToolCalls(deep), ToolCallSyntaxError);
    expect(readArgumentsText(`{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`)).toEqual({
      problem: 'the arguments are nested deeper than 64 levels',
    });
  });
});
