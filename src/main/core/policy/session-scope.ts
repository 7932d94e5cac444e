/**
 * What an "approve for session" covers. A tool declares the arguments that scope its session
 * grants (ToolSpec.sessionScope); a grant then covers only later calls with the same values:
 * for sys/exec the program and its first argument, a command prefix such as `git status`, so
 * approving `ls` never lets `rm -rf build` through. A string argument counts whole (a shell line
 * is matched exactly), an array argument by its first `arrayItems` entries (the prefix). A tool
 * that declares nothing is granted as a whole.
 */
import { abridge } from '../../../shared/abridge.js';

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
  /** Entries of an array argument that count (default 1); later ones are free. */
  arrayItems?: number;
}

export interface SessionScope {
  /** Compared exactly between the grant and a later call. */
  key: string;
  /** What a person is told the grant covers, e.g. `git status …`. */
  label: string;
}

export function sessionScopeOf(
  spec: SessionScopeSpec | undefined,
  input: Record<string, unknown>,
): SessionScope | undefined {
  if (!spec) return undefined;
  const take = spec.arrayItems ?? 1;
  const values: Record<string, unknown> = {};
  const words: string[] = [];
  let prefix = false;
  for (const name of spec.args) {
    const value = input[name];
    // `shell: false` and an absent flag mean the same call.
    if (value === undefined || value === null || value === false) continue;
    if (Array.isArray(value)) {
      const head = value.slice(0, take).map((item) => String(item));
      // No entries and an absent argument ask for the same call.
      if (!head.length) continue;
      values[name] = head;
      words.push(...head);
      // Later entries are free: the grant is a prefix, and says so.
      prefix = true;
    } else if (typeof value === 'string') {
      values[name] = value;
      words.push(value);
    } else {
      // Flags such as `shell: true` change what the other values mean: part of the key only.
      values[name] = value;
    }
  }
  const label = `${abridge(printable(words.join(' ')), LABEL_CHARS)}${prefix ? ' …' : ''}`.trim();
  return { key: JSON.stringify(values), label };
}
