/**
 * A name a sender chose for a file, made safe to store: one path component (no separators, no
 * `..`, no leading dot), no control or format characters (a right-to-left override can disguise
 * an extension), nothing Windows refuses, at most 120 bytes with its extension kept.
 */
const MAX_NAME_BYTES = 120;
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i;

export function safeFileName(raw: string, fallback = 'file'): string {
  const name = raw
    .normalize('NFC')
    .replace(/[\p{Cc}\p{Cf}\p{Cs}]/gu, '')
    .replace(/[/\\:*?"<>|;]/g, '_')
    .replace(/\.{2,}/g, '.');
  const bounded = trim(truncate(trim(name)));
  if (!bounded) return fallback;
  return WINDOWS_RESERVED.test(bounded) ? `_${bounded}` : bounded;
}

/** `name` with `-n` before its extension: the n-th alternative when the name is taken. */
export function numberedName(name: string, n: number): string {
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  return `${stem}-${n}${ext}`;
}

function trim(name: string): string {
  return name.replace(/^[\s._]+|[\s.]+$/g, '');
}

function truncate(name: string): string {
  if (Buffer.byteLength(name) <= MAX_NAME_BYTES) return name;
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
  const chars = [...name.slice(0, name.length - ext.length)].slice(0, MAX_NAME_BYTES);
  while (chars.length && Buffer.byteLength(chars.join('') + ext) > MAX_NAME_BYTES) chars.pop();
  return chars.join('') + ext;
}
