/**
 * What an "approve for session" covers. A tool declares the arguments that scope its session
 * grants (ToolSpec.sessionScope); a grant then covers only later calls with the same values,
 * and the label a person approves is those values as they read them. For sys/exec that is the
 * exact call shown: the program, every argument (options, their values, scripts and file
 * operands) and the folder it runs in, so approving `sed -n p notes.md` never lets
 * `sed -n '1e id>PWN' notes.md` through.
 *
 * File operands do not generalise: which words of a call are files is known only for the
 * programs in the table, and even there a file operand can be code (`sh build.sh`,
 * `make -f x`, `sed -f x`, `awk -f x`); a wider grant would cover a call nobody saw. To cover
 * many files, a person writes a rule (`cat *.md`), which reads what runs (command-match.ts).
 */
import path from 'node:path';
import { abridge } from '../../../shared/abridge.js';
import { quoteWord } from './command-match.js';

/** Longest label shown; the key always holds the whole values. */
const LABEL_CHARS = 160;

/**
 * Model output reaches terminals and dialogs through the label: control and direction-override
 * characters are written as escapes so they cannot restyle or reorder what a person reads.
 */
function printable(text: string): string {
  return text.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
    /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

export interface SessionScopeSpec {
  /** Argument names whose values scope a grant, in the order they are read out. */
  args: readonly string[];
  /** The argument naming the folder a call runs in: part of the scope, absent meaning `.`. */
  folder?: string;
}

export interface SessionScope {
  /** Compared exactly between the grant and a later call. */
  key: string;
  /** What a person is told the grant covers, e.g. `git status --short`. */
  label: string;
}

export function sessionScopeOf(
  spec: SessionScopeSpec | undefined,
  input: Record<string, unknown>,
): SessionScope | undefined {
  if (!spec) return undefined;
  const values: Record<string, unknown> = {};
  const words: string[] = [];
  for (const name of spec.args) {
    const value = input[name];
    // `shell: false` and an absent flag mean the same call.
    if (value === undefined || value === null || value === false) continue;
    if (Array.isArray(value)) {
      const items = value.map((item) => String(item));
      // No entries and an absent argument ask for the same call.
      if (!items.length) continue;
      values[name] = items;
      // Each entry as a shell would need it written: one word each, as the preview shows.
      words.push(...items.map(quoteWord));
    } else if (typeof value === 'string') {
      values[name] = value;
      words.push(value);
    } else {
      // Flags such as `shell: true` change what the other values mean: part of the key only.
      values[name] = value;
    }
  }
  let where = '';
  if (spec.folder) {
    const raw = input[spec.folder];
    const folder =
      typeof raw === 'string' && raw ? path.posix.normalize(raw).replace(/\/+$/, '') : '.';
    if (folder !== '.' && folder !== '') {
      values[spec.folder] = folder;
      where = ` (in ${folder})`;
    }
  }
  const label = abridge(printable(`${words.join(' ')}${where}`), LABEL_CHARS).trim();
  return { key: JSON.stringify(values), label };
}
