/**
 * The sed script reader against GNU sed itself. `sed --sandbox` refuses a script that holds an
 * `e`, `r` or `w` command (or `s///e`, `s///w`) when it compiles it, so it tells, for any
 * script, whether one is there. Every script sed refuses so must be one the reader flags (runs,
 * writes, reads, or cannot be read): checked on hand-written tricky scripts and on scripts
 * generated from a seed. Ordinary scripts must come out clean.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { sedCommands } from '../../../src/main/core/policy/script-readers.js';
import { seededRandom } from '../../support/seeded-random.js';

/** What sed says of the script: it holds e/r/w, it does not, or it is not a valid script. */
function sedVerdict(script: string): 'erw' | 'clean' | 'invalid' {
  try {
    execFileSync('sed', ['--sandbox', '-n', '-e', script, '/dev/null'], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    return 'clean';
  } catch (error) {
    const stderr = String((error as { stderr?: Buffer }).stderr ?? '');
    return stderr.includes('e/r/w commands disabled') ? 'erw' : 'invalid';
  }
}

const flagged = (script: string) => {
  const found = sedCommands(script);
  return found.runs || found.writes || found.reads || found.unreadable !== undefined;
};

const TRICKY = [
  '1e id',
  'e',
  '$!e id',
  '/x/,/y/e id',
  's/a/id/e',
  's/a/b/ge',
  's/a/b/w out',
  's|a|b|e',
  's/[/]/x/e',
  's/[]/]/x/e',
  's/[^]/]/x/e',
  's/[[:alpha:]/]/x/e',
  's/[[.a.]/]/x/e',
  's/\\//x/e',
  'y/abc/xyz/;e id',
  '/[/]/e id',
  '\\,a,e id',
  '\\%[%]%e id',
  'a foo\ne id',
  'a\\\ne id',
  'a\\\nfoo\\\ne id\ne id',
  'i\\\ntext;e id',
  'c text',
  ':a;e id',
  ': a\ne id',
  'b end;e id',
  'bx;e id',
  '{e id\n}',
  '{;e id;}',
  '1{p};e id',
  '# e id\np',
  '#n\ne id',
  'r file',
  'R file',
  'w file',
  'W file',
  '1~2e id',
  '0,/x/e id',
  '1,+3e id',
  '$ ! e id',
  'l 5;e id',
  'q5;e id',
  'v;e id',
  'v 4.2\ne id',
  's/a/b/;s/c/d/w x',
  's/a/b/ ; e id',
  's/a/b/I e',
  's/a/b/3e',
  'F;e id',
  'z;e id',
];

const CLEAN = [
  'p',
  's/one/uno/;2d',
  's/hello/world/g',
  's/[[:space:]]+$//',
  '/^#/d',
  '1,3p',
  '$!N;P;D',
  'y/abc/xyz/',
  's/wow/e/g',
  's/e/w/',
  '/e/p',
  'a\\\nsome text with e and w',
  'i hello world',
  ':loop;N;bloop',
  '1~2d',
  's|/usr|/opt|g',
  '=',
];

describe('the sed script reader agrees with sed on what runs', () => {
  it('flags every tricky script sed refuses in sandbox mode', () => {
    const missed = TRICKY.filter((script) => sedVerdict(script) === 'erw' && !flagged(script));
    expect(missed).toEqual([]);
    // The list is worth something: sed refuses most of it.
    expect(TRICKY.filter((script) => sedVerdict(script) === 'erw').length).toBeGreaterThan(40);
  });

  it('leaves ordinary scripts clean', () => {
    for (const script of CLEAN) {
      expect(sedVerdict(script), script).toBe('clean');
      expect(sedCommands(script), script).toEqual({ runs: false, writes: false, reads: false });
    }
    // Whether `[/]` ends the regex depends on the sed version: such a script is not guessed at.
    expect(sedCommands('s/[/]/x/').unreadable).toMatch(/bracket/);
  });

  it('never misses on generated scripts (seeded)', () => {
    const pieces = [
      's',
      'y',
      '/',
      '|',
      ',',
      'e',
      'w',
      'r',
      'W',
      ' ',
      ';',
      '\n',
      '\\',
      '[',
      ']',
      '^',
      ':',
      '.',
      '=',
      '#',
      '{',
      '}',
      'a',
      'i',
      'c',
      'p',
      'g',
      'I',
      '1',
      '$',
      '!',
      'x',
      ' id',
      'b',
      't',
      '~',
      '+',
      '[:alpha:]',
      '[/]',
      '[]',
      's/a/b/',
      's|a|b|',
      '1e id',
      'w out',
      'a\\',
      '\\/',
      '\\n',
      'e id\n',
      '/a/',
      '\\,x,',
      '0,/x/',
      '[.',
      '.]',
      '[=',
      '=]',
    ];
    const random = seededRandom(Number(process.env.SED_FUZZ_SEED ?? 33));
    let erw = 0;
    let cleanFlagged = 0;
    let clean = 0;
    const missed: string[] = [];
    for (let n = 0; n < 1000; n++) {
      const length = 1 + random.int(9);
      let script = '';
      for (let k = 0; k < length; k++) script += random.pick(pieces);
      const verdict = sedVerdict(script);
      if (verdict === 'erw') {
        erw += 1;
        if (!flagged(script)) missed.push(script);
      } else if (verdict === 'clean') {
        clean += 1;
        if (flagged(script)) cleanFlagged += 1;
      }
    }
    console.log(
      `sed reader: ${erw} generated scripts with e/r/w, ${missed.length} missed; ` +
        `${cleanFlagged} of ${clean} clean scripts flagged`,
    );
    expect(missed).toEqual([]);
    expect(erw).toBeGreaterThan(50);
  }, 120_000);
});
