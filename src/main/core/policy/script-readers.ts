/**
 * Readers for the code and config a program takes in its arguments: a sed script, an awk
 * program, git config keys. Each says what in its text runs another program (or writes a file
 * the program names), for the program table (program-table.ts). A text a reader cannot read
 * with certainty counts as running something: a person is asked rather than a guess allowed.
 */
import { abridge } from '../../../shared/abridge.js';
import { PincerError } from '../errors.js';

/** Model text quoted in a sentence for a person: printable, short. */
export function shown(word: string): string {
  return abridge(word.replace(/[^\x20-\x7e]/g, '?'), 60);
}

/** What a reader found; empty when the text runs nothing. */
export type ReaderName = 'sed-script' | 'awk-program' | 'git-config-pair' | 'git-config-operands';

export const READERS: Record<ReaderName, (values: readonly string[]) => string[]> = {
  'sed-script': (values) => sedFindings(values.join('\n')),
  'awk-program': (values) => values.flatMap(awkFindings),
  // `-c key=value`, `--config-env=key=ENV`: the key decides.
  'git-config-pair': (values) => values.flatMap((pair) => gitKeyFindings(pair.split('=')[0] ?? '')),
  // `git config KEY` only reads it; `git config KEY VALUE`, `--add`, `set` write it.
  'git-config-operands': (operands) =>
    operands.length < 2 ? [] : operands.flatMap((word) => gitKeyFindings(word)),
};

/**
 * git config keys whose values git runs as programs, or that lead to one, matched on the
 * lowercased key (subsections lowercased too, so only more matches).
 */
const GIT_CODE_KEYS: ReadonlyArray<readonly [RegExp, string]> = [
  [/^alias\./, 'an alias runs a shell command (`!cmd`) or git with any options'],
  [/^core\.fsmonitor$/, 'a program that git status, diff and add run'],
  [/^core\.hookspath$/, 'runs hooks from the folder it names'],
  [/^(core\.pager|pager\.)/, 'the pager program'],
  [/^(core|sequence)\.editor$/, 'the editor program'],
  [/^core\.(sshcommand|gitproxy|askpass|alternaterefscommand)$/, 'a program git runs'],
  [/^diff\.(external$|.+\.(command|textconv)$)/, 'a diff program'],
  [/^merge\..+\.driver$/, 'a merge driver program'],
  [/^filter\./, 'clean/smudge filter programs'],
  [/^credential\./, 'credential helper programs'],
  [
    /^(uploadpack\.packobjectshook|remote\..+\.(uploadpack|receivepack|vcs))$/,
    'the program run for a fetch or push',
  ],
  [/^url\..+\.(push)?insteadof$/, 'rewrites URLs, to transports such as ext:: that run commands'],
  [/^protocol\./, 'allows transports such as ext:: that run commands'],
  [/^(include|includeif\..+)\.path$/, 'reads another config file, which can set any of these'],
  [/^gpg\./, 'the signing program'],
  [
    /^(web\.browser|help\.browser|browser\.|man\.|instaweb\.|guitool\.)/,
    'a browser or viewer program',
  ],
  [/^(difftool|mergetool)\.|^(diff|merge)\.(gui)?tool$/, 'a diff or merge tool program'],
  [/^sendemail\./, 'mail programs'],
  [/^interactive\.difffilter$/, 'a filter program'],
  [/^submodule\..+\.update$/, 'a command (`!cmd`) run by submodule update'],
  [/^tar\..+\.command$/, 'a compression program for git archive'],
  [/^hook\./, 'hook commands'],
  [/^lfs\./, 'git-lfs transfer programs'],
  [/^trailer\..+\.(command|cmd)$/, 'a command run to fill a commit trailer'],
  [/^imap\.tunnel$/, 'a command git imap-send connects through'],
  [/^init\.templatedir$/, 'installs hooks from the folder it names'],
];

function gitKeyFindings(word: string): string[] {
  const key = word.trim().toLowerCase();
  const hit = GIT_CODE_KEYS.find(([pattern]) => pattern.test(key));
  return hit ? [`sets ${shown(word.trim())}: ${hit[1]}`] : [];
}

/** awk runs commands through system(), pipes (`|`, `|&`), @-calls and extensions. */
function awkFindings(program: string): string[] {
  return /system|\||@|extension/.test(program)
    ? ['its program can run commands (system(), pipes, @ calls or extensions)']
    : [];
}

export interface SedCommands {
  /** `e` commands and `s///e`: shell commands. */
  runs: boolean;
  /** `w`/`W` commands and `s///w`: files the script names. */
  writes: boolean;
  /** `r`/`R`: files read (what sed's operands do anyway). */
  reads: boolean;
  /** Why the script could not be read with certainty, if it could not. */
  unreadable?: string;
}

function sedFindings(script: string): string[] {
  const found = sedCommands(script);
  return [
    ...(found.runs ? ['its script runs a shell command (the `e` command or `s///e`)'] : []),
    ...(found.writes ? ['its script writes a file it names (`w`, `W` or `s///w`)'] : []),
    ...(found.unreadable
      ? [`its script cannot be read with certainty (${found.unreadable}), so it may run commands`]
      : []),
  ];
}

/** A script read stops here: what follows cannot be read with certainty. */
class Unreadable extends PincerError {
  constructor(why: string) {
    super('invalid_request', why);
  }
}

/**
 * The commands of a GNU sed script, read the way sed compiles one: addresses, then a command
 * letter whose argument (regex, replacement, text, label, file name) is skipped. Where the
 * extent of an argument is in doubt the shorter one is taken, so what follows is read as
 * commands; a regex whose end depends on how a sed version reads brackets is unreadable.
 */
export function sedCommands(script: string): SedCommands {
  const found: SedCommands = { runs: false, writes: false, reads: false };
  const s = script;
  let i = 0;
  const isBlank = (c: string | undefined) => c === ' ' || c === '\t';
  const isSpace = (c: string | undefined) => c !== undefined && /^[ \t\n\v\f\r]$/.test(c);
  const fail = (why: string): never => {
    throw new Unreadable(why);
  };
  const nonBlank = (): string | undefined => {
    while (isBlank(s[i])) i++;
    return s[i++];
  };
  const toLineEnd = () => {
    while (i < s.length && s[i] !== '\n') i++;
  };
  // Text of a/i/c/e: up to a newline that no backslash escapes.
  const text = () => {
    while (i < s.length && s[i] !== '\n') i += s[i] === '\\' ? 2 : 1;
  };
  const label = () => {
    while (isBlank(s[i])) i++;
    while (i < s.length && !/[\n \t;}#]/.test(s[i] as string)) i++;
  };
  const endOfCommand = () => {
    const c = nonBlank();
    if (c === undefined || c === '\n' || c === ';') return;
    if (c === '}' || c === '#') {
      i--;
      return;
    }
    fail(`unexpected \`${c}\` after a command`);
  };
  const bracket = (at: number): number => {
    // Returns the index after the closing `]`, or -1; `at` is just after `[`.
    let j = at;
    let c = s[j++];
    if (c === '^') c = s[j++];
    if (c === ']') c = s[j++];
    let state = 0;
    let delim = '';
    for (; ; c = s[j++]) {
      if (c === undefined || c === '\n') return -1;
      if (c === '.' || c === ':' || c === '=') {
        if (state === 1) {
          delim = c;
          state = 2;
          continue;
        }
        if (state === 2 && c === delim) {
          state = 3;
          continue;
        }
      } else if (c === '[') {
        if (state === 0) state = 1;
        continue;
      } else if (c === ']') {
        if (state === 0 || state === 1) return j;
        if (state === 3) state = 0;
      }
      state &= ~1;
    }
  };
  // The end of a delimited regex or replacement, read with and without bracket expressions.
  const delimited = (delim: string, regex: boolean) => {
    const end = (brackets: boolean): number => {
      let j = i;
      while (j < s.length) {
        const c = s[j++];
        if (c === '\n') return -1;
        if (c === delim) return j;
        if (c === '\\') {
          if (j >= s.length) return -1;
          j++;
        } else if (c === '[' && regex && brackets) {
          j = bracket(j);
          if (j < 0) return -1;
        }
      }
      return -1;
    };
    const withBrackets = end(true);
    if (regex && withBrackets !== end(false))
      fail('a bracket expression holds the delimiter or a newline');
    if (withBrackets < 0) fail('an unterminated regex or replacement');
    i = withBrackets;
  };
  const delimiter = (): string => {
    const c = s[i++];
    if (c === undefined || c === '\n' || c === '\\' || c.charCodeAt(0) > 127)
      fail('an unusual delimiter');
    return c as string;
  };
  const digits = () => {
    while (/[0-9]/.test(s[i] ?? '')) i++;
  };
  const address = (c: string | undefined): boolean => {
    if (c === '/' || c === '\\') {
      delimited(c === '\\' ? delimiter() : '/', true);
      let f = nonBlank();
      while (f === 'I' || f === 'M') f = nonBlank();
      i--;
      return true;
    }
    if (c !== undefined && /[0-9]/.test(c)) {
      digits();
      if (nonBlank() === '~') {
        while (isBlank(s[i])) i++;
        digits();
      } else i--;
      return true;
    }
    if (c === '+' || c === '~') {
      while (isBlank(s[i])) i++;
      digits();
      return true;
    }
    return c === '$';
  };
  try {
    for (;;) {
      while (s[i] === ';' || isSpace(s[i])) i++;
      if (i >= s.length) break;
      let c = s[i++];
      if (address(c)) {
        c = nonBlank();
        if (c === ',') {
          if (!address(nonBlank())) fail('a second address that is not one');
          c = nonBlank();
        }
      }
      if (c === '!') c = nonBlank();
      switch (c) {
        case '#':
          toLineEnd();
          break;
        case '{':
          break;
        case '}':
          endOfCommand();
          break;
        case ':':
        case 'b':
        case 't':
        case 'T':
        case 'v':
          label();
          break;
        case 'e':
          found.runs = true;
          text();
          break;
        case 'a':
        case 'i':
        case 'c':
          while (isBlank(s[i])) i++;
          if (s[i] === '\\') {
            i++;
            if (s[i] === '\n') i++;
          }
          text();
          break;
        case 'r':
        case 'R':
          found.reads = true;
          toLineEnd();
          break;
        case 'w':
        case 'W':
          found.writes = true;
          toLineEnd();
          break;
        case 'l':
        case 'L':
        case 'q':
        case 'Q':
          while (isBlank(s[i])) i++;
          digits();
          endOfCommand();
          break;
        case 's': {
          const delim = delimiter();
          delimited(delim, true);
          delimited(delim, false);
          for (;;) {
            const f = nonBlank();
            if (f === undefined || f === '\n' || f === ';') break;
            if (f === '}' || f === '#') {
              i--;
              break;
            }
            if (f === 'e') found.runs = true;
            else if (f === 'w') {
              found.writes = true;
              toLineEnd();
              break;
            } else if (f === '\r' && s[i] === '\n') {
              i++;
              break;
            } else if (!/[gpiImM0-9]/.test(f)) fail(`an unknown s flag \`${f}\``);
          }
          break;
        }
        case 'y': {
          const delim = delimiter();
          delimited(delim, false);
          delimited(delim, false);
          endOfCommand();
          break;
        }
        default:
          if (c === undefined || !'=dDFgGhHnNpPzx'.includes(c)) fail(`an unknown command \`${c}\``);
          endOfCommand();
      }
    }
  } catch (error) {
    if (!(error instanceof Unreadable)) throw error;
    found.unreadable = error.message;
  }
  return found;
}
