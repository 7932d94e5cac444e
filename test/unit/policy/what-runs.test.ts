/**
 * The program table read as the programs read their arguments: long options and their
 * abbreviations, `--opt=value` and `--opt value`, short clusters, `--`, subcommands, config keys
 * and scripts. What runs another program is found; the everyday forms are not.
 */
import { describe, expect, it } from 'vitest';
import { PROGRAM_TABLE } from '../../../src/main/core/policy/program-table.js';
import { whatRuns } from '../../../src/main/core/policy/what-runs.js';

const runs = (program: string, ...args: string[]) => whatRuns(program, args);

describe('calls that run another program', () => {
  it.each([
    // The reported payloads.
    ['git', 'ls-remote', '--u=id', 'origin'],
    ['git', 'clone', '--conf=core.fsmonitor=id', 'u', 'd'],
    ['git', 'rebase', '--ex=id', 'HEAD~1'],
    ['git', 'push', '--ex=id', 'origin'],
    ['tar', '-cf', 'a.tar', '--checkpoint-=exec=id', '.'],
    ['git', 'config', 'alias.x', '!id'],
    ['git', 'config', 'core.fsmonitor', 'id'],
    ['git', 'grep', '-O', 'x'],
    ['git', 'grep', '-nOid', 'x'],
    ['git', 'grep', '--open', 'x'],
    ['sed', '1e id', 'notes.md'],
    ['sed', '-n', '1e id>PWN', 'notes.md'],
    ['split', '--filter=id', 'notes.md'],
    ['split', '--f', 'id', 'notes.md'],
    // Option values given as the next word, abbreviations, clusters, old-style tar.
    ['git', 'ls-remote', '--upload', 'id', 'origin'],
    ['git', 'clone', '--con', 'core.hooksPath=h', 'u', 'd'],
    ['git', 'clone', '-ucustom', 'u', 'd'],
    ['git', 'rebase', '-ix', 'id', 'HEAD~2'],
    ['git', '-C', 'sub', '-c', 'core.pager=id', 'log'],
    ['git', '-c', 'Alias.X=!id', 'x'],
    ['git', '-c', 'include.path=../evil', 'status'],
    ['git', '-c', 'init.templateDir=t', 'init'],
    ['git', '-c', 'trailer.x.command=id', 'commit', '--trailer', 'x'],
    ['git', '-c', 'url.ext::sh -c id #.insteadOf=https://', 'fetch'],
    ['git', '--config-env=core.sshCommand=E', 'fetch'],
    ['git', '--exec-path=.', 'status'],
    ['git', 'config', '--global', 'filter.x.smudge', 'id'],
    ['git', 'config', '-f', '.git/config', '--add', 'credential.helper', '!id'],
    ['git', 'config', 'set', 'diff.external', 'id'],
    ['git', 'config', '--rename-section', 'foo', 'alias'],
    ['git', 'config', '--edit'],
    ['git', 'clone', 'ext::sh -c id', 'd'],
    ['git', 'clone', '--template=t', 'u', 'd'],
    ['git', 'submodule', 'foreach', 'id'],
    ['git', 'submodule', '--quiet', 'foreach', 'id'],
    ['git', 'bisect', 'run', 'id'],
    ['git', 'difftool'],
    ['git', 'hook', 'run', 'pre-commit'],
    ['tar', '--to=id', '-xf', 'a.tar'],
    ['tar', '-xf', 'a.tar', '--use', 'id'],
    ['tar', 'xIf', 'id', 'a.tar'],
    ['tar', 'cvfF', 'a.tar', 'id', '.'],
    ['tar', '-xvzf', 'a.tgz', '--info-s=id'],
    ['sed', '-e', 'p', '-e', '1e id', 'f'],
    ['sed', '--expression=s/a/id/e', 'f'],
    ['sed', '--exp', 's/a/b/w out', 'f'],
    ['sed', '-f', 'script.sed', 'f'],
    ['sed', '--sand', '1e id', 'f'],
    ['sed', '-n', 'p', 'f', '-e', '1e id'],
    // A path is read as the program it names (a rule like `*/git *` may match it).
    ['/usr/bin/sed', '1e id', 'f'],
    ['./git', 'config', 'core.fsmonitor', 'id'],
    ['awk', 'BEGIN{system("id")}'],
    ['gawk', '-e', 'BEGIN{"id" | getline}'],
    ['awk', '--fi', 'prog.awk'],
    ['mawk', '-W', 'exec', 'prog.awk'],
    ['find', '.', '-name', '*.md', '-exec', 'id', ';'],
    ['find', '.', '-delete'],
    ['xargs', 'id'],
    ['env', 'FOO=1', 'id'],
    ['timeout', '5', 'git', 'status'],
    ['sh', '-c', 'id'],
    ['bash', '--norc', '-lc', 'id'],
    ['bash', '+o', 'posix', '-c', 'id'],
    ['python3', '-c', 'import os'],
    ['python3.11', '-Ic', 'import os'],
    ['node', '-pe', '1'],
    ['perl', '-ne', 'print'],
    ['rsync', '-ave', 'id', 'h:a', 'b'],
    ['rsync', '--rsync-p=id', 'h:a', 'b'],
    ['ssh', '-oProxyCommand=id', 'h'],
    ['scp', '-S', 'id', 'h:a', 'b'],
    ['zip', '-TT', 'id', 'a.zip', 'f'],
    ['zip', '--unzip', 'id', 'a.zip', 'f'],
    ['sort', '--compress=id', 'f'],
    ['man', '-P', 'id', 'ls'],
    ['vim', '-c', '!id', 'f'],
    ['vim', '+!id', 'f'],
    ['ed', '!id'],
    ['make', 'CC=id', 'all'],
    ['make', '--eval', '$(shell id)'],
    ['rg', '--pre', 'id', 'x'],
    ['fd', '-x', 'id'],
    ['wget', '-e', 'use_askpass=id', 'http://x'],
    ['npm', 'exec', 'x'],
    ['npx', 'x'],
  ])('%s %s …', (program, ...args) => {
    const found = runs(program, ...args);
    expect(found.length, found.join('\n')).toBeGreaterThan(0);
  });

  it('says which option a prefix was read as, and what it runs', () => {
    expect(runs('git', 'ls-remote', '--u=id', 'origin')).toEqual([
      'git ls-remote --u (read as --upload-pack): runs the shell command in its value',
    ]);
    expect(runs('tar', '-cf', 'a.tar', '--checkpoint-=exec=id', '.')).toEqual([
      'tar --checkpoint- (read as --checkpoint-action): runs an action at checkpoints, exec= runs a command',
    ]);
    expect(runs('git', 'config', 'alias.x', '!id')).toEqual([
      'git config: sets alias.x: an alias runs a shell command (`!cmd`) or git with any options',
    ]);
    expect(runs('sed', '-n', '1e id>PWN', 'notes.md')).toEqual([
      'sed: its script runs a shell command (the `e` command or `s///e`)',
    ]);
  });

  it('a value Pincer shows is printable and short', () => {
    const [found] = runs('git', '-c', `alias.\u001b[2J${'x'.repeat(200)}=!id`, 'x');
    expect(found).not.toContain('\u001b');
    expect((found ?? '').length).toBeLessThan(200);
  });
});

describe('the everyday forms run nothing else', () => {
  it.each([
    ['git', 'status'],
    ['git', 'status', '--short'],
    ['git', 'log', '--oneline', '--', '--exec=id'],
    ['git', '-c', 'color.ui=never', 'log'],
    ['git', '-C', 'sub', 'status'],
    ['git', 'config', 'user.name', 'Someone'],
    ['git', 'config', 'alias.x'],
    ['git', 'config', '--get', 'alias.x'],
    ['git', 'config', '--unset', 'core.fsmonitor'],
    ['git', 'config', '-l'],
    ['git', 'grep', '-e', '-O', 'f'],
    ['git', 'push', '-u', 'origin', 'main'],
    ['git', 'add', '-u'],
    ['git', 'clone', '--depth', '1', 'https://example.org/r.git'],
    ['git', 'commit', '-m', 'use -c and --exec in docs'],
    ['tar', '-xzf', 'a.tgz'],
    ['tar', '-tf', 'x.tar'],
    ['tar', 'cvf', 'a.tar', 'dir'],
    ['tar', '-cf', 'a.tar', '--checkpoint=10', '.'],
    ['tar', '-cf', 'a.tar', '--', '--to-command=id'],
    ['sed', '-n', 'p', 'notes.md'],
    ['sed', '-i', 's/a/b/g', 'f'],
    ['sed', '-e', 's/hello/world/', 'f'],
    ['sed', '--sandbox', '1e id', 'f'],
    ['sed', '-n', '/e/p', 'f'],
    ['split', '-l', '1', 'notes.md', 'part-'],
    ['sort', '-k', '2', 'f'],
    ['find', '.', '-name', '*.md'],
    ['awk', '{print $1}', 'notes.md'],
    ['awk', '-F', ':', '$3 > 10 {print $1}', 'f'],
    ['rsync', '-av', '--delete', 'a/', 'b/'],
    ['sh', 'build.sh'],
    ['bash', 'script.sh', 'arg'],
    ['python3', 'x.py'],
    ['node', 'x.js'],
    ['make', 'test'],
    ['make', '-j4', 'all'],
    ['ls', '-la'],
    ['cat', '-e', 'f'],
  ])('%s %s …', (program, ...args) => {
    expect(runs(program, ...args)).toEqual([]);
  });
});

describe('the table is data', () => {
  it('names each program once, and every entry says what it runs', () => {
    const names = PROGRAM_TABLE.flatMap((entry) => entry.names);
    expect(new Set(names).size).toBe(names.length);
    const sayWhat = (entry: (typeof PROGRAM_TABLE)[number] | object): boolean => {
      const e = entry as {
        always?: string;
        options?: { runs?: string; reads?: string; takes?: string; disarms?: boolean }[];
        words?: unknown[];
        script?: string;
        operands?: string;
        subcommands?: Record<string, object>;
      };
      const says =
        Boolean(e.always || e.words?.length || e.script || e.operands) ||
        Boolean(e.options?.some((option) => option.runs || option.reads));
      return says || Object.values(e.subcommands ?? {}).some(sayWhat);
    };
    for (const entry of PROGRAM_TABLE) expect(sayWhat(entry), entry.names[0]).toBe(true);
  });
});
