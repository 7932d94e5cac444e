/**
 * Fuzz: 2000 seeded inputs (valid programs, character- and token-level mutations of them, and
 * random strings). Every input either parses (and then round-trips through the printer) or
 * fails with a ToolCallSyntaxError positioned inside the input; nothing else is ever thrown.
 */
import { describe, expect, it } from 'vitest';
import { ToolCallSyntaxError } from '../../../src/main/core/toolcall/errors.js';
import { parseToolCall } from '../../../src/main/core/toolcall/parser.js';
import { formatToolCall } from '../../../src/main/core/toolcall/print.js';
import { Gen } from './gen.js';
import { prng, strip } from './helpers.js';

const TOKEN = /"(?:[^"\\]|\\.)*"|->|[{}()[\],;=]|[^{}()[\],;="\s]+|\s+/g;
const NOISE = [
  '@',
  '$',
  '{',
  '}',
  '(',
  ')',
  '[',
  ']',
  ',',
  ';',
  '=',
  '-',
  '>',
  '.',
  '/',
  '"',
  "'",
  '\\',
  ' ',
  '\n',
  '\r',
  '0',
  'x',
  'a',
  'é',
  '😀',
  '\u0000',
  '\ud800',
];
const NOISE_TOKENS = [
  '->',
  '@fs/read',
  '$prev.x',
  '0x',
  '1.5',
  'yes',
  '"s"',
  "'t'",
  '{}',
  '()',
  '[',
  ']',
  '=',
  ';',
  ',',
];

function mutate(text: string, gen: Gen): string {
  const tokens = text.match(TOKEN) ?? [text];
  const steps = 1 + gen.int(3);
  let out = text;
  for (let s = 0; s < steps; s++) {
    const at = gen.int(out.length + 1);
    switch (gen.int(7)) {
      case 0:
        out = out.slice(0, at) + out.slice(at + 1);
        break;
      case 1:
        out = out.slice(0, at) + gen.pick(NOISE) + out.slice(at);
        break;
      case 2:
        if (at + 1 < out.length) out = out.slice(0, at) + out[at + 1] + out[at] + out.slice(at + 2);
        break;
      case 3: {
        const t = [...tokens];
        t.splice(gen.int(t.length), 1);
        out = t.join('');
        break;
      }
      case 4: {
        const t = [...tokens];
        t.splice(gen.int(t.length + 1), 0, gen.pick(NOISE_TOKENS));
        out = t.join('');
        break;
      }
      case 5: {
        const t = [...tokens];
        const i = gen.int(t.length);
        const j = gen.int(t.length);
        [t[i], t[j]] = [t[j] as string, t[i] as string];
        out = t.join('');
        break;
      }
      default:
        out =
          out.slice(0, at) + out.slice(gen.int(out.length), gen.int(out.length)) + out.slice(at);
    }
  }
  return out;
}

/** Line count and each line's length in code points, as the lexer counts them. */
function lineLengths(text: string): number[] {
  return text.split(/\r\n|\r|\n/).map((line) => [...line].length);
}

describe('parser fuzz', () => {
  it('throws only ToolCallSyntaxError, always positioned inside the input', () => {
    const gen = new Gen(prng(20_240_605));
    let parsed = 0;
    let failed = 0;
    for (let i = 0; i < 2000; i++) {
      let input: string;
      const kind = i % 10;
      if (kind === 0) input = formatToolCall(gen.program());
      else if (kind === 9)
        input = Array.from({ length: gen.int(40) }, () => gen.pick(NOISE)).join('');
      else input = mutate(formatToolCall(gen.program()), gen);
      try {
        const program = parseToolCall(input);
        parsed++;
        expect(strip(parseToolCall(formatToolCall(program)))).toEqual(strip(program));
      } catch (error) {
        failed++;
        if (!(error instanceof ToolCallSyntaxError)) {
          throw new Error(`non-syntax error for ${JSON.stringify(input)}: ${String(error)}`);
        }
        const lines = lineLengths(input);
        const where = `${error.line}:${error.column} in ${JSON.stringify(input)}`;
        expect(error.line, where).toBeGreaterThanOrEqual(1);
        expect(error.line, where).toBeLessThanOrEqual(lines.length);
        expect(error.column, where).toBeGreaterThanOrEqual(1);
        expect(error.column, where).toBeLessThanOrEqual((lines[error.line - 1] ?? 0) + 1);
        expect(error.offset, where).toBeLessThanOrEqual(input.length);
        expect(error.message.startsWith(`${error.line}:${error.column}: `), where).toBe(true);
      }
    }
    // Both outcomes are exercised.
    expect(parsed).toBeGreaterThan(200);
    expect(failed).toBeGreaterThan(1000);
  });
});
