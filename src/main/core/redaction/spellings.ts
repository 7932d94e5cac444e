/**
 * The spellings of a known value that a decoded view can still hold: the value itself, reversed,
 * base64 and base64url at each of the three byte alignments (a value inside a larger encoded
 * blob starts 0, 1 or 2 bytes into a 3-byte group), and hex in either case. Escapes (percent,
 * backslash, HTML), whitespace and ANSI codes are undone by the decoded view (`decoded-view`).
 */

import { decodedView } from './decoded-view.js';

/** Shorter spellings would match ordinary words and ids; such spellings are not searched. */
export const MIN_SPELLING_LENGTH = 8;

/**
 * The base64 characters that depend on the value's bits alone when it starts `shift` bytes into
 * a 3-byte group: the characters at either end also carry the neighbours' bits.
 */
function base64Core(bytes: Buffer, shift: number): string {
  const padded = Buffer.concat([Buffer.alloc(shift), bytes, Buffer.alloc(2)]);
  const encoded = padded.toString('base64');
  const first = Math.ceil((8 * shift) / 6);
  const last = Math.floor((8 * (shift + bytes.length)) / 6);
  return encoded.slice(first, last);
}

export function spellingsOf(value: string): string[] {
  // As the text is searched: decoded, whitespace (a passphrase's spaces) left out.
  const plain = decodedView(value).text;
  const bytes = Buffer.from(value, 'utf8');
  const all = new Set<string>([plain, [...plain].reverse().join('')]);
  for (const shift of [0, 1, 2]) {
    const core = base64Core(bytes, shift);
    all.add(core);
    all.add(core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  const hex = bytes.toString('hex');
  all.add(hex);
  all.add(hex.toUpperCase());
  return [...all].filter((spelling) => spelling.length >= MIN_SPELLING_LENGTH);
}
