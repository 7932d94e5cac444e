/** The `command` condition: argv globs word by word, shell lines only for `shell: true` rules. */
import { describe, expect, it } from 'vitest';
import {
  type CommandCall,
  commandCallOf,
  commandMatches,
} from '../../../src/main/core/policy/command-match.js';

const argv = (command: string, ...args: string[]) =>
  commandCallOf({ command, args }) as CommandCall;
const line = (command: string) => commandCallOf({ command, shell: true }) as CommandCall;
const matches = (pattern: string, call: CommandCall, shellRule = false) =>
  commandMatches(pattern, call, shellRule);

describe('argv patterns', () => {
  it('match the program and then one argument per word; a lone * is any run of arguments', () => {
    expect(matches('git *', argv('git'))).toBe(true);
    expect(matches('git *', argv('git', 'log', '--oneline'))).toBe(true);
    expect(matches('git status', argv('git', 'status'))).toBe(true);
    expect(matches('git status', argv('git', 'status', '--porcelain'))).toBe(false);
    expect(matches('git log *', argv('git', 'log'))).toBe(true);
    expect(matches('git log *', argv('git', 'push'))).toBe(false);
    expect(matches('git * -c* *', argv('git', '-c', 'alias.x=!id', 'x'))).toBe(true);
    expect(matches('git * -c* *', argv('git', 'status'))).toBe(false);
    expect(matches('cat *.md', argv('cat', 'notes/a.md'))).toBe(true);
    expect(matches('cat *.md', argv('cat', 'a.md', 'b.txt'))).toBe(false);
    expect(matches('* *', argv('anything', 'at', 'all'))).toBe(true);
  });

  it('an argument is one word: spaces or semicolons inside it cannot reach the next word', () => {
    expect(matches('echo hello', argv('echo', 'hello; id'))).toBe(false);
    expect(matches('git status', argv('git status'))).toBe(false);
    expect(matches('git *', argv('git --version; id'))).toBe(false);
  });

  it('classes: [abc] and [!abc] match one character', () => {
    expect(matches('sh * -[!-]*c* *', argv('sh', '-ec', 'id'))).toBe(true);
    expect(matches('sh * -[!-]*c* *', argv('sh', '--norc', 'script.sh'))).toBe(false);
    expect(matches('tar * -[IF]* *', argv('tar', '-I', 'prog', '-xf', 'a.tar'))).toBe(true);
    expect(matches('tar * -[IF]* *', argv('tar', '-xf', 'a.tar'))).toBe(false);
  });

  it('a bare program word matches only a bare program, never a path to a file of that name', () => {
    expect(matches('git *', argv('./git', 'status'))).toBe(false);
    expect(matches('git *', argv('/proc/self/cwd/git', 'status'))).toBe(false);
    expect(matches('git *', argv('/usr/bin/git', 'status'))).toBe(false);
    expect(matches('/usr/bin/git *', argv('/usr/bin/git', 'status'))).toBe(true);
    expect(matches('*/git *', argv('./git'))).toBe(true);
  });

  it('a /regex/ tests the quoted line a shell would need for the argv', () => {
    expect(commandCallOf({ command: 'bash', args: ['-c', 'curl x | sh'] })?.line).toBe(
      "bash -c 'curl x | sh'",
    );
    expect(matches('/curl .*\\|\\s*sh/', argv('bash', '-c', 'curl x | sh'))).toBe(true);
    expect(matches('/^git (status|log)$/', argv('git', 'status'))).toBe(true);
    expect(matches('/(/', argv('git'))).toBe(false);
  });

  it('stays fast on many arguments and many stars', () => {
    const args = Array.from({ length: 5000 }, (_, i) => `a${i}`);
    expect(matches('x * a1 * a2 * a3 * zz *', argv('x', ...args))).toBe(false);
  });
});

describe('shell lines', () => {
  it('are never matched by an argv rule, whatever the pattern', () => {
    for (const pattern of ['git *', '* *', '*', '/git/', 'git --version; id'])
      expect(matches(pattern, line('git --version; id')), pattern).toBe(false);
  });

  it('are matched over the raw line by a rule that says shell: true, and argv calls are not', () => {
    expect(matches('git status', line('git status'), true)).toBe(true);
    expect(matches('git status', line('git status; id'), true)).toBe(false);
    expect(matches('/^ls( -la)?$/', line('ls -la'), true)).toBe(true);
    expect(matches('git status', argv('git', 'status'), true)).toBe(false);
  });

  it('an exec call without a command string is no command call', () => {
    expect(commandCallOf({ path: 'a' })).toBeUndefined();
    expect(commandCallOf({ command: 42 })).toBeUndefined();
  });
});
