/**
 * The `command` condition of a policy rule, matched against what would actually run.
 *
 * An argv call (sys/exec without `shell`) is a program and its argument list, and a glob
 * pattern is read the same way: words split on spaces, the first for the program, each next one
 * for exactly one argument (`*`, `?` and `[...]`/`[!...]` within it), and a word that is only
 * `*` for any run of arguments, none included. So `git *` matches every git call and nothing
 * else, and `git * -c*` a git call with an argument starting `-c` anywhere. A bare program
 * word matches only a bare program (looked up on PATH), a word with a slash only that path:
 * `./git` or `/proc/self/cwd/git` (files the workspace may hold) do not borrow a `git *` rule.
 * A `/regex/` tests the call as a shell would have to spell it (arguments quoted).
 *
 * A shell line (`shell: true`) is not an argv: in `git --version; id` git is not all that
 * runs. A rule's command patterns match a shell line only when the rule says `shell: true`,
 * and then test the raw line.
 */

export interface CommandCall {
  program: string;
  args: readonly string[];
  shell: boolean;
  /** The line as a shell reads it: the raw line, or the argv quoted. */
  line: string;
}

/** The command an exec-like call asks for (`command`, `args`, `shell`), if it names one. */
export function commandCallOf(input: Record<string, unknown>): CommandCall | undefined {
  if (typeof input.command !== 'string') return undefined;
  const shell = input.shell === true;
  const args = Array.isArray(input.args) ? input.args.map(String) : [];
  const line = shell ? input.command : commandLineOf(input.command, args);
  return { program: input.command, args, shell, line };
}

/** Whether one `command` pattern matches the call; `shellRule` is the rule's `shell: true`. */
export function commandMatches(pattern: string, call: CommandCall, shellRule: boolean): boolean {
  if (call.shell !== shellRule) return false;
  const regex = /^\/(.*)\/([a-z]*)$/s.exec(pattern);
  if (regex) {
    try {
      return new RegExp(regex[1] ?? '', regex[2]).test(call.line);
    } catch {
      return false;
    }
  }
  if (call.shell) return wordGlob(pattern.trim()).test(call.line);
  const [first, ...rest] = pattern.trim().split(/\s+/);
  if (!first || !programMatches(first, call.program)) return false;
  return argsMatch(rest, call.args);
}

/** A bare word names a program looked up on PATH; a word with a slash, the path as given. */
function programMatches(word: string, program: string): boolean {
  return word.includes('/') === program.includes('/') && wordGlob(word).test(program);
}

/** Pattern words against arguments; a lone `*` takes any run of them (dynamic programming). */
function argsMatch(words: readonly string[], args: readonly string[]): boolean {
  // reach[j]: the words so far can consume exactly the first j arguments.
  let reach = args.map(() => false).concat(false);
  reach[0] = true;
  for (const word of words) {
    const next = reach.map(() => false);
    if (word === '*') {
      let seen = false;
      reach.forEach((ok, j) => {
        seen ||= ok;
        next[j] = seen;
      });
    } else {
      const glob = wordGlob(word);
      args.forEach((arg, j) => {
        next[j + 1] = reach[j] === true && glob.test(arg);
      });
    }
    reach = next;
  }
  return reach[args.length] === true;
}

/** `*` any characters, `?` one, `[abc]`/`[!abc]` one of (not) those. */
function wordGlob(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    const close = c === '[' ? glob.indexOf(']', i + 2) : -1;
    if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (close > 0) {
      const set = glob.slice(i + 1, close);
      const negated = set.startsWith('!');
      out += `[${negated ? '^' : ''}${(negated ? set.slice(1) : set).replace(/[\\\]^]/g, '\\$&')}]`;
      i = close;
    } else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`, 's');
}

/** One line for the checks: arguments quoted where the shell would need it. */
export function commandLineOf(command: string, args: readonly string[]): string {
  return [command, ...args.map(quoteWord)].join(' ');
}

/** One argument as a shell would need it written. */
export function quoteWord(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}
