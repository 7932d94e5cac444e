/**
 * The commands the README tells a user to type: each line of a shell code fence that starts with
 * `pincer`, `npx pincer` or `npm`, split at `&&`, its comment dropped, and its synopsis expanded
 * into runnable variants: an optional `[--flag value|other]` is taken with its first choice, and
 * `A | B` alternatives become commands of their own (B replaces A's subcommand when it names a
 * sibling subcommand, else A's last argument).
 */

export interface ReadmeLine {
  /** 1-based line in the README. */
  line: number;
  /** The nearest heading above it. */
  section: string;
  /** The command as written (one side of a `&&`), without its comment. */
  written: string;
  /** Written with a trailing `&`: the README starts it in the background. */
  background: boolean;
}

const SHELL_FENCES = new Set(['', 'sh', 'bash', 'shell', 'console', 'zsh']);
const COMMAND = /^(\$ )?(npx pincer|pincer|npm)(\s|$)/;

export function readmeLines(markdown: string): ReadmeLine[] {
  const found: ReadmeLine[] = [];
  let fence: string | null = null;
  let section = '';
  markdown.split('\n').forEach((text, index) => {
    const trimmed = text.trim();
    const marker = /^(```|~~~)\s*([\w-]*)/.exec(trimmed);
    if (marker) {
      fence = fence === null ? (marker[2] ?? '') : null;
      return;
    }
    if (fence === null) {
      if (/^#{1,6} /.test(text)) section = text.replace(/^#+ /, '');
      return;
    }
    if (!SHELL_FENCES.has(fence) || !COMMAND.test(trimmed)) return;
    for (const part of withoutComment(trimmed.replace(/^\$ /, '')).split(/\s+&&\s+/)) {
      const background = /\s&$/.test(part);
      const written = part.replace(/\s*&$/, '').trim();
      if (written) found.push({ line: index + 1, section, written, background });
    }
  });
  return found;
}

/** Drops a `# comment` that is not inside quotes. */
function withoutComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '#' && (i === 0 || /\s/.test(line[i - 1] ?? ''))) {
      return line.slice(0, i).trimEnd();
    }
  }
  return line;
}

/** Splits at a separator that is outside [brackets] and quotes. */
function splitTop(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth++;
    else if (c === ']') depth--;
    else if (depth === 0 && text.startsWith(separator, i)) {
      parts.push(text.slice(start, i));
      start = i + separator.length;
      i += separator.length - 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim());
}

/** `[--scope global|identity:ID]` -> `--scope global`: an optional part with its first choice. */
function takeOptionals(text: string): string {
  let out = text;
  for (;;) {
    const match = /\[([^[\]]*)\]/.exec(out);
    if (!match) return out.replace(/\s+/g, ' ').trim();
    const first = splitTop(match[1] ?? '', '|')[0] ?? '';
    out = out.slice(0, match.index) + first + out.slice(match.index + match[0].length);
  }
}

/**
 * The runnable variants of a written synopsis. `subcommandsOf(words)` names the subcommands of
 * the command `words` (e.g. ['skills'] -> ['list', 'add', ...]).
 */
export function variantsOf(
  written: string,
  subcommandsOf: (words: string[]) => string[],
): string[] {
  const [first = '', ...alternatives] = splitTop(written, ' | ');
  const base = takeOptionals(first);
  const words = base.split(' ');
  const at = words[0] === 'npx' ? 2 : 1;
  const variants = [base];
  for (const alternative of alternatives) {
    const alt = takeOptionals(alternative);
    const head = alt.split(' ')[0] ?? '';
    // The longest command path of base whose subcommands include the alternative's first word.
    let replaced: string | null = null;
    for (let end = words.length - 1; end >= at; end--) {
      if (subcommandsOf(words.slice(at, end)).includes(head)) {
        replaced = [...words.slice(0, end), alt].join(' ');
        break;
      }
    }
    variants.push(replaced ?? [...words.slice(0, -1), alt].join(' '));
  }
  return variants;
}

/** The placeholders of a command: words in capitals (NAME, PATH, WORDS). */
export function placeholdersOf(command: string): string[] {
  return command.split(' ').filter((word) => /^[A-Z][A-Z_]+$/.test(word));
}

export interface Synopsis {
  line: number;
  /** The synopsis as written, after `pincer `, with `\|` read as `|`. */
  written: string;
}

/** The `pincer ...` synopses in the first cell of the README's tables (the Usage table). */
export function tableSynopses(markdown: string): Synopsis[] {
  const found: Synopsis[] = [];
  markdown.split('\n').forEach((text, index) => {
    if (!text.startsWith('| `pincer')) return;
    const cell = text.replaceAll('\\|', '\u0000').split('|')[1] ?? '';
    for (const span of cell.matchAll(/`pincer ([^`]+)`/g))
      found.push({ line: index + 1, written: (span[1] ?? '').replaceAll('\u0000', '|').trim() });
  });
  return found;
}

/**
 * What a synopsis claims that the CLI lacks: each subcommand it names must be one, and each
 * `--option` must be in the help of the command it follows. `helpOf(words)` is that command's
 * `--help` text, `subcommandsOf(words)` its subcommands.
 */
export function synopsisProblems(
  synopsis: string,
  helpOf: (words: string[]) => string,
  subcommandsOf: (words: string[]) => string[],
): string[] {
  const problems: string[] = [];
  const path: string[] = [];
  let extending = true;
  /** After `a|b`, further `|` choices that are words are siblings of a and b (`add PATH|enable`). */
  let siblingsOf: string[] | null = null;
  for (const token of synopsis
    .replace(/"[^"]*"/g, 'TEXT')
    .replace(/[[\]]/g, ' ')
    .split(/\s+/)) {
    const choices = token.split('|').filter(Boolean);
    for (const choice of choices.filter((c) => c.startsWith('--'))) {
      const flag = choice.replace(/=.*$/, '');
      if (!new RegExp(`(^|[\\s,])${flag}\\b`, 'm').test(helpOf(path)))
        problems.push(`pincer ${path.join(' ')} has no option ${flag}`);
    }
    const words = choices.filter((c) => /^[a-z][\w-]*$/.test(c));
    if (siblingsOf && choices.length > 1) {
      const known = subcommandsOf(siblingsOf);
      for (const word of words)
        if (!known.includes(word))
          problems.push(`pincer ${[...siblingsOf, word].join(' ')} is not a command`);
      continue;
    }
    if (!extending || words.length === 0 || words.length !== choices.length) continue;
    const known = subcommandsOf(path);
    if (known.length === 0) {
      extending = false;
      continue;
    }
    for (const word of words)
      if (!known.includes(word))
        problems.push(`pincer ${[...path, word].join(' ')} is not a command`);
    if (words.length === 1) path.push(words[0] as string);
    else {
      extending = false;
      siblingsOf = [...path];
    }
  }
  return problems;
}
