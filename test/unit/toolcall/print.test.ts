import { describe, expect, it } from 'vitest';
import { parseToolCall } from '../../../src/main/core/toolcall/parser.js';
import {
  formatFloat,
  formatString,
  formatToolCall,
} from '../../../src/main/core/toolcall/print.js';
import { Gen } from './gen.js';
import { prng, strip } from './helpers.js';

describe('formatToolCall', () => {
  it('prints the canonical compact form', () => {
    const text = "[ @fs/read{ path = 'a\"b' ; n = yes ; h = 0xff ; f = 1.50 } , @ping{} ]";
    expect(formatToolCall(parseToolCall(text))).toBe(
      '[@fs/read{path="a\\"b";n=true;h=0xFF;f=1.5},@ping{}]',
    );
    expect(formatToolCall(parseToolCall('@a{} -> @b{x=$prev.y}'))).toBe('@a{}->@b{x=$prev.y}');
    expect(formatToolCall(parseToolCall('@sys/exec{args=( "a" , (1) )}'))).toBe(
      '@sys/exec{args=("a",(1))}',
    );
  });

  it('writes floats without exponents and keeps them floats', () => {
    expect(formatFloat(1)).toBe('1.0');
    expect(formatFloat(-0)).toBe('-0.0');
    expect(formatFloat(0.5)).toBe('0.5');
    expect(formatFloat(1e21)).toBe('1000000000000000000000.0');
    expect(formatFloat(1.5e-7)).toBe('0.00000015');
    expect(formatFloat(-2.5e22)).toBe('-25000000000000000000000.0');
    expect(formatFloat(Number.MAX_VALUE)).toMatch(/^17976931348623157\d+\.0$/);
    expect(formatFloat(Number.MIN_VALUE)).toMatch(/^0\.0+5$/);
  });

  it('escapes strings so they read back the same', () => {
    expect(formatString('a"b\\c\nd\u0001\u007f')).toBe('"a\\"b\\\\c\\nd\\u0001\\u007f"');
    expect(formatString('\ud800x')).toBe('"\\ud800x"');
  });

  it('round-trips 1000 random programs: parse(print(p)) equals p without spans', () => {
    const gen = new Gen(prng(1234));
    for (let i = 0; i < 1000; i++) {
      const program = gen.program();
      const text = formatToolCall(program);
      const parsed = parseToolCall(text);
      expect(strip(parsed)).toEqual(strip(program));
      expect(formatToolCall(parsed)).toBe(text);
    }
  });
});
