/**
 * The agent's one redactor fed a stored secret in every spelling a tool, a file or a model
 * could carry it in, and a model stream that sends it a few characters at a time.
 */
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../../src/main/core/redaction/index.js';
import { MIN_REDACT_LENGTH } from '../../../src/main/core/redaction/redactor.js';

// No credential pattern matches it: only the registry of stored values can catch it.
const SECRET = 'vault-Q7x2mZ9kLp4w/+Rn8v';
const NAME = 'STORED_KEY';
const MARK = `[REDACTED:${NAME}]`;

const bytes = Buffer.from(SECRET, 'utf8');
const b64 = (buffer: Buffer) => buffer.toString('base64');
const b64url = (buffer: Buffer) => buffer.toString('base64url');
const every = (text: string, fn: (char: string) => string) => [...text].map(fn).join('');
const pct = (char: string, upper = true) => {
  const hex = char.charCodeAt(0).toString(16).padStart(2, '0');
  return `%${upper ? hex.toUpperCase() : hex}`;
};

/** Each spelling, around other text, as it reaches the redactor. */
const SPELLINGS: Record<string, string> = {
  plain: `key is ${SECRET}.`,
  'base64, aligned': `blob ${b64(bytes)} end`,
  'base64, shifted by one byte': `blob ${b64(Buffer.concat([Buffer.from('x'), bytes]))} end`,
  'base64, shifted by two bytes': `blob ${b64(Buffer.concat([Buffer.from('xy'), bytes]))} end`,
  'base64 inside a larger blob': b64(
    Buffer.concat([Buffer.from('header: '), bytes, Buffer.from(' trailer')]),
  ),
  'base64url, each alignment': [0, 1, 2]
    .map((n) => b64url(Buffer.concat([Buffer.alloc(n, 0xfb), bytes])))
    .join(' '),
  'base64 wrapped at 76 columns': b64(Buffer.concat([Buffer.alloc(50, 0x41), bytes])).replace(
    /.{1,20}/g,
    '$&\n',
  ),
  'hex, lower case': `hex ${bytes.toString('hex')}`,
  'hex, upper case': `HEX ${bytes.toString('hex').toUpperCase()}`,
  'percent-encoded, every character': `?k=${every(SECRET, (c) => pct(c))}`,
  'percent-encoded, lower-case hex': `?k=${every(SECRET, (c) => pct(c, false))}`,
  'percent-encoded, partly': `?k=${encodeURIComponent(SECRET)}&x=${SECRET.replace('Q7', '%51%37')}`,
  'JSON-escaped': JSON.stringify({ v: SECRET }),
  '\\uXXXX escapes': `"${every(SECRET, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`,
  '\\xHH escapes': every(SECRET, (c) => `\\x${c.charCodeAt(0).toString(16)}`),
  'split across lines (\\n)': `${SECRET.slice(0, 7)}\n${SECRET.slice(7, 15)}\n${SECRET.slice(15)}`,
  'split across lines (\\r\\n)': `${SECRET.slice(0, 9)}\r\n${SECRET.slice(9)}`,
  'split across JSON string lines (escaped \\n)': JSON.stringify(
    `${SECRET.slice(0, 9)}\n${SECRET.slice(9)}`,
  ),
  'ANSI colour codes between characters': every(SECRET, (c) => `\x1b[3${c.length}m${c}\x1b[0m`),
  'zero-width characters between characters': every(SECRET, (c) => `${c}\u200b\u200d\ufeff`),
  'HTML entities, decimal': every(SECRET, (c) => `&#${c.charCodeAt(0)};`),
  'HTML entities, hex and named': `<b>${every(SECRET, (c) => (c === '/' ? '&#x2f;' : c))}</b>`,
  'spaced-out characters': every(SECRET, (c) => `${c} `),
  reversed: [...SECRET].reverse().join(''),
};

describe('the redactor finds a stored secret in each spelling', () => {
  const redactor = new Redactor();
  redactor.register(SECRET, NAME);

  it('has at least 15 spellings to check', () => {
    expect(Object.keys(SPELLINGS).length).toBeGreaterThanOrEqual(15);
  });

  for (const [what, text] of Object.entries(SPELLINGS)) {
    it(what, () => {
      const { text: out, found } = redactor.redact(text);
      expect(found).toContain('known-secret');
      expect(out).toContain(MARK);
      // Decoded again the way the spelling was made, the secret is gone too.
      for (const check of [out, decodeAll(out)]) expect(check).not.toContain(SECRET.slice(2, -2));
    });
  }

  it('leaves text without it untouched, byte for byte', () => {
    const text = 'Plain prose: 100% sure, a\\b, &amp; \x1b[31mred\x1b[0m, caf\u00e9 \u200b.\n';
    expect(redactor.redact(text)).toEqual({ text, found: [] });
  });

  it('names the secret, replaces the longer of two that overlap, and forgets on unregister', () => {
    const r = new Redactor();
    r.register('abcd', 'SHORT');
    r.register('abcdefghij', 'LONG');
    r.register('hunter2-pass');
    expect(r.redact('xabcdefghijx abcd hunter2-pass').text).toBe(
      'x[REDACTED:LONG]x [REDACTED:SHORT] [REDACTED]',
    );
    r.unregister('abcdefghij');
    expect(r.redact('abcdefghij').text).toBe('[REDACTED:SHORT]efghij');
    r.register('a'.repeat(MIN_REDACT_LENGTH - 1));
    expect(r.redact('aaa').text).toBe('aaa');
  });

  it('keeps the credential patterns (a key it never stored)', () => {
    const token = `ghp_${'a1B2c3D4e5'.repeat(4)}`;
    expect(new Redactor().redact(`token ${token}`)).toEqual({
      text: 'token [REDACTED:github-token]',
      found: ['github-token'],
    });
  });

  it('redacts every string of a JSON-like value', () => {
    expect(redactor.redactValue({ a: [SECRET, 1], b: { c: `x${SECRET}` } })).toEqual({
      a: [MARK, 1],
      b: { c: `x${MARK}` },
    });
  });
});

describe('a stream never shows a secret that arrives in pieces', () => {
  const redactor = new Redactor();
  redactor.register(SECRET, NAME);
  const reply = `Sure. The key is ${SECRET} and that is all.`;

  const run = (pieces: string[]) => {
    const stream = redactor.stream();
    const shown = [...pieces.map((piece) => stream.push(piece)), stream.end()];
    return shown;
  };

  it('in 6-character pieces', () => {
    const pieces = reply.match(/.{1,6}/gs) ?? [];
    const shown = run(pieces);
    for (const piece of shown) expect(piece).not.toMatch(/Q7x2|kLp4|Rn8v/);
    expect(shown.join('')).toBe(`Sure. The key is ${MARK} and that is all.`);
  });

  it('split in two at every point of the reply', () => {
    for (let at = 0; at <= reply.length; at++) {
      const shown = run([reply.slice(0, at), reply.slice(at)]);
      expect(shown.join(''), `split at ${at}`).toBe(`Sure. The key is ${MARK} and that is all.`);
    }
  });

  it('one character at a time, in each spelling', () => {
    for (const [what, text] of Object.entries(SPELLINGS)) {
      const shown = run([...text]);
      const all = shown.join('');
      expect(all, what).toBe(redactor.redact(text).text);
      expect(all, what).toContain(MARK);
    }
  });

  it('shows text without a secret as it comes, whole at the end', () => {
    const stream = redactor.stream();
    expect(stream.push('Hello there, ')).toBe('Hello there, ');
    expect(stream.push('wor')).toBe('wor');
    // "v" could begin the secret: held until the next piece says otherwise.
    expect(stream.push('ld v')).toBe('ld ');
    expect(stream.push('ery nice!')).toBe('very nice!');
    expect(stream.push(' 50%')).toBe(' 50');
    expect(stream.end()).toBe('%');
  });
});

/** Undoes the encodings above that a reader would (for the "nothing left" check). */
function decodeAll(text: string): string {
  let out = text;
  try {
    out = decodeURIComponent(out);
  } catch {}
  const ansi = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
  return out.replace(ansi, '').replace(/\s|\u200b|\u200d|\ufeff/g, '');
}
