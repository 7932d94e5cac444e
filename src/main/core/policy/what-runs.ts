/**
 * Reads an argv call against the program table (program-table.ts) the way the program's own
 * option parser would: `--name=value` and `--name value`, a unique prefix of a long option
 * where the program accepts one (a prefix that could name an option that runs something counts
 * as that option), clusters of short options with a glued or a following value, `--` ending the
 * options, subcommands. Says, for a person, what the call would run besides its program.
 */
import type { OptionEntry, ProgramEntry } from './program-entry.js';
import { PROGRAM_TABLE } from './program-table.js';
import { READERS, shown } from './script-readers.js';

/** What the call runs besides its program, one sentence each; empty when nothing. */
export function whatRuns(program: string, args: readonly string[]): string[] {
  const name = program.slice(program.lastIndexOf('/') + 1);
  const model = PROGRAM_TABLE.find((entry) => entry.names.some((n) => nameMatches(n, name)));
  return model ? [...new Set(readCall(name, model, args))] : [];
}

function nameMatches(pattern: string, name: string): boolean {
  if (!pattern.includes('*')) return pattern === name;
  const body = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${body.join('.*')}$`).test(name);
}

function readCall(label: string, entry: ProgramEntry, given: readonly string[]): string[] {
  const found: string[] = [];
  // Findings an option such as sed --sandbox cancels.
  const cancellable: string[] = [];
  if (entry.always) found.push(`${label} ${entry.always}`);
  for (const word of given) {
    for (const rule of entry.words ?? [])
      if (rule.match.test(word)) found.push(`${label} \`${shown(word)}\`: ${rule.runs}`);
  }
  const args = entry.bundledFirst ? unbundle(entry, given) : [...given];
  const operands: string[] = [];
  const script: string[] = [];
  let scriptGiven = false;
  let disarmed = false;

  const use = (option: OptionEntry, spelled: string, exact: boolean, value?: string) => {
    if (option.runs) cancellable.push(`${label} ${spelled}: ${option.runs}`);
    if (option.script) {
      scriptGiven = true;
      if (option.reads && value !== undefined) script.push(value);
    } else if (option.reads && value !== undefined) {
      for (const why of READERS[option.reads]([value])) found.push(`${label} ${spelled}: ${why}`);
    }
    if (option.disarms && exact) disarmed = true;
  };

  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    if (word === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (word.startsWith('--')) {
      const eq = word.indexOf('=');
      const name = word.slice(2, eq < 0 ? undefined : eq);
      let value = eq < 0 ? undefined : word.slice(eq + 1);
      const { options, exact } = longOptions(entry, name);
      const spelled = (option: OptionEntry) => {
        const full = option.long?.find((long) => long.startsWith(name)) ?? name;
        return exact ? `--${shown(name)}` : `--${shown(name)} (read as --${full})`;
      };
      const [only] = options;
      if (only && options.length === 1) {
        if (only.takes === 'value' && value === undefined && i + 1 < args.length) {
          value = args[++i] as string;
          // Read as a prefix, the program might see another option and this word as an option.
          if (!exact) found.push(...readCall(label, dangerousOnly(entry), [value]));
        }
        use(only, spelled(only), exact, value);
      } else {
        // Ambiguous: each option it could be that runs something, or whose value a reader checks.
        for (const option of options) {
          if (option.runs) use(option, spelled(option), false);
          else if (option.reads || option.script)
            found.push(`${label} ${spelled(option)}: its value could not be checked`);
        }
      }
      continue;
    }
    if (word.startsWith('-') && word.length > 1) {
      for (let j = 1; j < word.length; j++) {
        const letter = word[j] as string;
        const option = entry.options?.find((o) => o.short?.includes(letter));
        // A letter not in the table: the rest of the cluster is still read as letters.
        if (!option) continue;
        const spelled = `-${letter}${option.long?.[0] ? ` (--${option.long[0]})` : ''}`;
        const rest = word.slice(j + 1);
        const exact = word.length === 2;
        if (option.takes === 'value') {
          use(option, spelled, exact, rest || (i + 1 < args.length ? args[++i] : undefined));
          break;
        }
        if (option.takes === 'optional') {
          use(option, spelled, exact, rest || undefined);
          break;
        }
        use(option, spelled, exact);
      }
      continue;
    }
    const sub = entry.subcommands;
    if (operands.length === 0 && sub && Object.hasOwn(sub, word)) {
      found.push(...readCall(`${label} ${word}`, sub[word] as ProgramEntry, args.slice(i + 1)));
      break;
    }
    operands.push(word);
    if (entry.optionsFirst) {
      operands.push(...args.slice(i + 1));
      break;
    }
  }
  if (!disarmed) {
    found.push(...cancellable);
    const reader = entry.script;
    const text = scriptGiven ? script : operands.slice(0, 1);
    if (reader && text.length)
      for (const why of READERS[reader](text)) found.push(`${label}: ${why}`);
    if (entry.operands)
      for (const why of READERS[entry.operands](operands)) found.push(`${label}: ${why}`);
  }
  return found;
}

/** The options a long word can name: the exact one, else every one it is a prefix of. */
function longOptions(entry: ProgramEntry, name: string) {
  const all = entry.options ?? [];
  const exact = all.filter((option) => option.long?.includes(name));
  if (exact.length || !entry.abbreviations || !name) return { options: exact, exact: true };
  return {
    options: all.filter((option) => option.long?.some((long) => long.startsWith(name))),
    exact: false,
  };
}

function dangerousOnly(entry: ProgramEntry): ProgramEntry {
  return {
    options: (entry.options ?? []).filter((option) => option.runs),
    ...(entry.abbreviations ? { abbreviations: true } : {}),
  };
}

/** `tar xIf prog a.tar`: each letter of the first word is an option, values taken in order. */
function unbundle(entry: ProgramEntry, args: readonly string[]): string[] {
  const [first, ...rest] = args;
  if (first === undefined || first.startsWith('-')) return [...args];
  const out: string[] = [];
  for (const letter of first) {
    out.push(`-${letter}`);
    const option = entry.options?.find((o) => o.short?.includes(letter));
    const value = option?.takes === 'value' ? rest.shift() : undefined;
    if (value !== undefined) out.push(value);
  }
  return [...out, ...rest];
}
