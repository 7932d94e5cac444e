/**
 * sed and awk in the program table: their scripts can run commands and write files, so an
 * operand or option that gives the script goes to the script readers (script-readers.ts).
 */
import type { ProgramModel } from './program-entry.js';

export const SED: ProgramModel = {
  names: ['sed', 'gsed'],
  abbreviations: true,
  script: 'sed-script',
  // The complete GNU sed option list, so an abbreviation resolves as sed resolves it.
  options: [
    { long: ['expression'], short: 'e', takes: 'value', reads: 'sed-script', script: true },
    {
      long: ['file'],
      short: 'f',
      takes: 'value',
      script: true,
      runs: 'reads its script from a file, which can run commands (e) and write files (w)',
    },
    // e, r and w are refused by sed itself.
    { long: ['sandbox'], disarms: true },
    { long: ['in-place'], short: 'i', takes: 'optional' },
    { long: ['line-length'], short: 'l', takes: 'value' },
    { long: ['quiet', 'silent'], short: 'n' },
    { long: ['regexp-extended'], short: 'Er' },
    { long: ['separate'], short: 's' },
    { long: ['null-data', 'zero-terminated'], short: 'z' },
    { long: ['unbuffered'], short: 'u' },
    { long: ['binary'], short: 'b' },
    { long: ['posix', 'debug', 'follow-symlinks', 'help', 'version'] },
  ],
};

export const AWK: ProgramModel = {
  names: ['awk', 'gawk', 'mawk', 'nawk', 'original-awk'],
  abbreviations: true,
  script: 'awk-program',
  options: [
    {
      long: ['file'],
      short: 'f',
      takes: 'value',
      script: true,
      runs: 'runs an awk program from a file',
    },
    {
      long: ['exec'],
      short: 'E',
      takes: 'value',
      script: true,
      runs: 'runs an awk program from a file',
    },
    { long: ['source'], short: 'e', takes: 'value', script: true, reads: 'awk-program' },
    { long: ['include'], short: 'i', takes: 'value', runs: 'runs awk code from a file' },
    { long: ['load'], short: 'l', takes: 'value', runs: 'loads a native extension library' },
    // mawk -W exec FILE, gawk -W with any long option.
    { short: 'W', takes: 'value', runs: 'takes -W options, among them exec (a program file)' },
    { long: ['assign', 'field-separator'], short: 'vF', takes: 'value' },
  ],
};
