/**
 * Pincer's own grammar for structured replies, checked without a model: the GBNF it writes for
 * numbers and patterns is read back as a regular expression (the subset it uses maps one to
 * one) and run against every value of a range or many samples. Whatever it admits must be
 * valid; the real-model runs are in test/integration/openai-server/structured-output.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { jsonSchemaGrammar } from '../../../src/main/core/local/json-grammar.js';
import {
  integerGrammar,
  integerRange,
  type NumberRange,
  numberGrammar,
} from '../../../src/main/core/local/number-grammar.js';
import { patternGrammar } from '../../../src/main/core/local/pattern-grammar.js';

/** A GBNF expression of literals, classes, groups and repeats as a JavaScript RegExp. */
function asRegex(gbnf: string): RegExp {
  const body = gbnf
    // Code points above U+10FFFF exist only for the grammar's decoder, not in JavaScript.
    .replace(/\\U00110000-\\U7FFFFFFF/g, '')
    .replace(/"((?:[^"\\]|\\.)*)"/g, (_, text: string) =>
      text.replace(/\\(.)/g, '$1').replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .replace(/\\U([0-9A-F]{8})/g, (_, h: string) => `\\u{${h.replace(/^0+/, '') || '0'}}`)
    .replace(/ /g, '');
  return new RegExp(`^(?:${body})$`, 'u');
}

const inRange = (x: number, r: NumberRange) =>
  (r.minimum === undefined || x >= r.minimum) &&
  (r.maximum === undefined || x <= r.maximum) &&
  (r.exclusiveMinimum === undefined || x > r.exclusiveMinimum) &&
  (r.exclusiveMaximum === undefined || x < r.exclusiveMaximum);

describe('integer ranges as digit alternatives', () => {
  it('1..7 is one digit class', () => {
    expect(integerRange(1, 7)).toBe('[1-7]');
  });

  it.each([
    [1, 7],
    [0, 0],
    [-3, 250],
    [1, 99_999],
    [-1000, -7],
    [10, 20],
    [123, 4567],
  ])('%i..%i admits exactly its integers', (low, high) => {
    const re = asRegex(integerRange(low, high) ?? '');
    // Every value near the bounds, every 7th one between them.
    for (let v = low - 120; v <= high + 120; v += v > low + 120 && v < high - 120 ? 7 : 1) {
      expect(re.test(String(v)), String(v)).toBe(v >= low && v <= high);
    }
    // No leading zeros, no exponent, no sign on zero.
    for (const odd of ['01', '1e0', '-0', '+1', '1.0']) expect(re.test(odd)).toBe(false);
  });

  it('exclusive bounds move in by one; an unbounded integer has at most 15 digits', () => {
    const re = asRegex(integerGrammar({ exclusiveMinimum: 0, exclusiveMaximum: 100 }) ?? '');
    expect(['0', '1', '99', '100'].map((v) => re.test(v))).toEqual([false, true, true, false]);
    const any = asRegex(integerGrammar({}) ?? '');
    expect(any.test('999999999999999')).toBe(true);
    expect(any.test('1000000000000000')).toBe(false);
    expect(any.test('-42')).toBe(true);
    expect(integerGrammar({ minimum: 5, maximum: 4 })).toBeUndefined();
  });
});

describe('numbers: finite, bounded digits, inside their range', () => {
  const ranges: NumberRange[] = [
    { minimum: -2.5, maximum: 3 },
    { exclusiveMinimum: 0, exclusiveMaximum: 1 },
    {},
    { minimum: 0.15, maximum: 0.2 },
    { exclusiveMinimum: -1, maximum: 0 },
  ];
  it.each(ranges)('admits only values in %j', (range) => {
    const re = asRegex(numberGrammar(range) ?? '');
    let admitted = 0;
    let seed = 7;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    for (let i = 0; i < 20_000; i++) {
      const v = (random() - 0.5) * (random() < 0.5 ? 8 : 2000);
      for (const digits of [0, 1, 2, 3, 5]) {
        const text = v.toFixed(digits);
        if (!re.test(text)) continue;
        admitted++;
        expect(inRange(Number(text), range), text).toBe(true);
      }
    }
    expect(admitted).toBeGreaterThan(0);
    for (const odd of ['1e5', '8E4668883820750250', '1.', '.5', 'Infinity', 'NaN'])
      expect(re.test(odd), odd).toBe(false);
  });

  it('keeps the inclusive bounds themselves and the small values above an exclusive zero', () => {
    const re = asRegex(numberGrammar({ minimum: -2.5, maximum: 3 }) ?? '');
    expect(['-2.5', '3', '0.25', '-2.51', '3.1'].map((v) => re.test(v))).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
    const open = asRegex(numberGrammar({ exclusiveMinimum: 0, exclusiveMaximum: 1 }) ?? '');
    expect(['0.01', '0.0', '0', '1', '0.999'].map((v) => re.test(v) && open.test(v))).toEqual([
      true,
      false,
      false,
      false,
      true,
    ]);
  });
});

describe('patterns as grammar', () => {
  const cases: [string, string[], string[]][] = [
    ['^[A-Z]{2}-[0-9]{3}$', ['AB-123', 'ZZ-000'], ['ab-123', 'AB-12', 'AB-1234', 'AB123']],
    ['^(a|b[^x])+.$', ['aa', 'bya', 'abzq'], ['bx', 'a', 'x']],
    ['^\\d+(\\.\\d{1,2})?$', ['12', '1.5', '0.25'], ['1.', '1.234', 'a']],
    ['^[\\w.-]+@[a-z]+\\.(com|org)$', ['a.b-c@x.com'], ['a@x.net', '@x.com']],
  ];
  it.each(cases)('%s admits what the regex accepts and nothing it refuses', (pattern, yes, no) => {
    const grammar = patternGrammar(pattern);
    expect(grammar).toBeDefined();
    const re = asRegex(grammar ?? '');
    const js = new RegExp(pattern, 'u');
    for (const s of yes) expect([re.test(s), js.test(s)], s).toEqual([true, true]);
    for (const s of no) expect(re.test(s), s).toBe(false);
  });

  it('never lets a quote, a backslash or a control character in raw', () => {
    const re = asRegex(patternGrammar('^[^a]{1,3}$') ?? '');
    expect(re.test('bcd')).toBe(true);
    for (const bad of ['"', '\\', '\n', '\u0000', '\uD800']) expect(re.test(bad), bad).toBe(false);
  });

  it('refuses what a grammar cannot follow', () => {
    for (const pattern of ['^(a)\\1$', '(?=a)b', 'a\\bb', '^a$|^b$'])
      expect(patternGrammar(pattern), pattern).toBeUndefined();
  });
});

describe('JSON Schema to GBNF', () => {
  it('writes required properties, lets optional ones go, and nothing undeclared', () => {
    const { gbnf, exact, notes } = jsonSchemaGrammar({
      type: 'object',
      properties: {
        days: { type: 'integer', minimum: 1, maximum: 7 },
        note: { type: 'string', maxLength: 3 },
      },
      required: ['days'],
      additionalProperties: false,
    });
    expect(exact).toBe(true);
    expect(notes).toEqual([]);
    expect(gbnf).toContain('[1-7]');
    expect(gbnf).toMatch(/"\{" "\\"days\\":" int\d+ \("," "\\"note\\":" str\d+\)\? "\}"/);
    expect(gbnf).toContain('char{0,3}');
  });

  it('says what it only approximates, so the reply is validated after generation', () => {
    const { exact, notes } = jsonSchemaGrammar({
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string' }, uniqueItems: true },
        n: { type: 'integer', multipleOf: 3 },
        code: { type: 'string', pattern: '^(a)\\1$' },
      },
      required: ['tags', 'n', 'code'],
    });
    expect(exact).toBe(false);
    expect(notes).toEqual(['/tags: uniqueItems', '/n: multipleOf', '/code: pattern ^(a)\\1$']);
  });

  it('refuses a schema no value can satisfy, naming where', () => {
    expect(() => jsonSchemaGrammar({ type: 'integer', minimum: 3, maximum: 2 })).toThrow(
      /admits no value/,
    );
    expect(() =>
      jsonSchemaGrammar({
        type: 'object',
        required: ['x'],
        properties: {},
        additionalProperties: false,
      }),
    ).toThrow(/\/x admits no value/);
  });

  it('follows local $refs, recursive ones too', () => {
    const { gbnf } = jsonSchemaGrammar({
      $ref: '#/$defs/node',
      $defs: {
        node: {
          type: 'object',
          properties: { kids: { type: 'array', items: { $ref: '#/$defs/node' }, maxItems: 2 } },
          required: ['kids'],
        },
      },
    });
    expect(gbnf).toMatch(/^root ::= ref\d+$/m);
  });
});
