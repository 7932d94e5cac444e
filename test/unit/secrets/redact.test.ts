import { describe, expect, it } from 'vitest';
import { MIN_REDACT_LENGTH, SecretRedactor } from '../../../src/main/core/secrets/redact.js';

describe('SecretRedactor', () => {
  it('replaces every occurrence, with the name when known', () => {
    const r = new SecretRedactor();
    r.register('sk-live-abc123', 'OPENAI_API_KEY');
    r.register('hunter2-pass');
    expect(r.redact('a sk-live-abc123 b sk-live-abc123 c hunter2-pass')).toBe(
      'a [REDACTED:OPENAI_API_KEY] b [REDACTED:OPENAI_API_KEY] c ***',
    );
  });

  it('replaces the longer of two overlapping secrets whole', () => {
    const r = new SecretRedactor();
    r.register('abcd', 'SHORT');
    r.register('abcdefgh', 'LONG');
    expect(r.redact('xabcdefghx abcd')).toBe('x[REDACTED:LONG]x [REDACTED:SHORT]');
  });

  it('covers JSON-escaped, URL-encoded and base64 spellings, and added variants', () => {
    const r = new SecretRedactor();
    const value = 'p@ss"word/+=';
    r.register(value, 'PW');
    expect(r.redact(JSON.stringify({ v: value }))).not.toContain('ss\\"word');
    expect(r.redact(`?k=${encodeURIComponent(value)}`)).toBe('?k=[REDACTED:PW]');
    expect(r.redact(Buffer.from(value).toString('base64'))).toBe('[REDACTED:PW]');
    r.addVariant((v) => [v.split('').reverse().join('')]);
    expect(r.redact(value.split('').reverse().join(''))).toBe('[REDACTED:PW]');
  });

  it('ignores values too short to redact safely, and forgets unregistered ones', () => {
    const r = new SecretRedactor();
    r.register('a'.repeat(MIN_REDACT_LENGTH - 1));
    expect(r.redact('aaa')).toBe('aaa');
    r.register('token-xyz', 'T');
    r.unregister('token-xyz');
    expect(r.redact('token-xyz')).toBe('token-xyz');
  });
});
