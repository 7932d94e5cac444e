/** A sender's file name made into one safe path component. */
import { expect, it } from 'vitest';
import { numberedName, safeFileName } from '../../../src/main/core/channels/file-names.js';

it('keeps ordinary names as they are', () => {
  expect(safeFileName('report 2026.pdf')).toBe('report 2026.pdf');
  expect(safeFileName('résumé.txt')).toBe('résumé.txt');
});

it('never yields a separator, `..`, a leading dot, a control or format character', () => {
  expect(safeFileName('../../etc/passwd')).toBe('etc_passwd');
  expect(safeFileName('..\\\\..\\\\boot.ini')).toBe('boot.ini');
  expect(safeFileName('.bashrc')).toBe('bashrc');
  expect(safeFileName('a\u0000b\nc\u202Etxt.exe')).toBe('abctxt.exe');
  expect(safeFileName('x..y')).toBe('x.y');
  expect(safeFileName('a:b*c?"d<e>f|g;h')).toBe('a_b_c__d_e_f_g_h');
  for (const hostile of ['..', '.', '/', '\u0000', '   ', '\u202E']) {
    expect(safeFileName(hostile, 'file-1')).toBe('file-1');
  }
});

it('avoids Windows device names and bounds the length, keeping the extension', () => {
  expect(safeFileName('CON.txt')).toBe('_CON.txt');
  const long = safeFileName(`${'é'.repeat(200)}.pdf`);
  expect(Buffer.byteLength(long)).toBeLessThanOrEqual(120);
  expect(long.endsWith('.pdf')).toBe(true);
});

it('numbers an alternative before the extension', () => {
  expect(numberedName('notes.txt', 2)).toBe('notes-2.txt');
  expect(numberedName('README', 1)).toBe('README-1');
});
