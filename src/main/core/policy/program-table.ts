/**
 * Programs that run other programs, or write files they are told to, through their options,
 * operands, config or scripts. A command rule such as `git *` names one program; when a call
 * makes that program run another one (`git ls-remote --upload-pack=…`, `sed '1e …'`), the rule
 * does not cover it: the call asks a person on its own (what-runs.ts reads an argv against
 * this table). Each entry says what it runs. Options are spelled as the program's parser
 * reads them: `long` names (an unambiguous prefix counts where `abbreviations` is set, as GNU
 * getopt_long and git's parse-options accept), `short` letters (in a cluster too), `takes` a
 * value (`value`: glued or the next word; `optional`: glued only).
 *
 * Not listed, and why: less, more (with no terminal, as under sys/exec, they copy the file;
 * their `!`/`|` commands come only from a terminal); a repository's own hooks and .git/config,
 * and a Makefile's recipes (workspace content the program was asked to use, not arguments);
 * shell lines (`shell: true`), which only a rule that says `shell: true` matches, as written.
 */
import { GIT } from './git-entry.js';
import {
  NAMED_PROGRAM,
  type OptionEntry,
  type ProgramEntry,
  type ProgramModel,
} from './program-entry.js';
import { AWK, SED } from './script-program-entries.js';

const TAR: ProgramModel = {
  names: ['tar', 'gtar', 'bsdtar'],
  abbreviations: true,
  bundledFirst: true,
  options: [
    {
      long: ['to-command'],
      takes: 'value',
      runs: 'pipes each extracted file to the shell command in its value',
    },
    {
      long: ['checkpoint-action'],
      takes: 'value',
      runs: 'runs an action at checkpoints, exec= runs a command',
    },
    { long: ['checkpoint'], takes: 'optional' },
    {
      long: ['use-compress-program'],
      short: 'I',
      takes: 'value',
      runs: 'compresses through the program its value names',
    },
    {
      long: ['rsh-command'],
      takes: 'value',
      runs: 'reaches a remote archive through the program its value names',
    },
    {
      long: ['info-script', 'new-volume-script'],
      short: 'F',
      takes: 'value',
      runs: 'runs the script its value names at each volume',
    },
    { long: ['file'], short: 'f', takes: 'value' },
    {
      long: [
        'directory',
        'files-from',
        'exclude-from',
        'blocking-factor',
        'listed-incremental',
        'format',
        'starting-file',
        'tape-length',
        'newer',
        'after-date',
        'label',
      ],
      short: 'CTXbgHKLNV',
      takes: 'value',
    },
  ],
};

/** Options through which the ssh family runs programs. */
const SSH_CONFIG: OptionEntry[] = [
  {
    short: 'o',
    takes: 'value',
    runs: 'sets any ssh option, among them ProxyCommand, LocalCommand and KnownHostsCommand',
  },
  { short: 'F', takes: 'value', runs: 'reads an ssh config file, which can set ProxyCommand' },
];

const INTERPRETER = (letters: string, language: string, long: string[] = []): ProgramEntry => ({
  options: [{ long, short: letters, runs: `runs the ${language} code in its arguments` }],
});

export const PROGRAM_TABLE: readonly ProgramModel[] = [
  GIT,
  SED,
  AWK,
  TAR,
  {
    names: ['split'],
    abbreviations: true,
    options: [
      {
        long: ['filter'],
        takes: 'value',
        runs: 'pipes each piece to the shell command in its value',
      },
      {
        long: [
          'suffix-length',
          'bytes',
          'line-bytes',
          'lines',
          'number',
          'separator',
          'additional-suffix',
        ],
        short: 'abClnt',
        takes: 'value',
      },
    ],
  },
  {
    names: ['sort'],
    abbreviations: true,
    options: [
      {
        long: ['compress-program'],
        takes: 'value',
        runs: 'compresses temporary files through the program its value names',
      },
      {
        long: ['key', 'output', 'buffer-size', 'field-separator', 'temporary-directory'],
        short: 'koStT',
        takes: 'value',
      },
    ],
  },
  {
    names: ['install', 'ginstall'],
    abbreviations: true,
    options: [
      {
        long: ['strip-program'],
        takes: 'value',
        runs: 'strips through the program its value names',
      },
    ],
  },
  {
    names: ['diff3', 'sdiff'],
    abbreviations: true,
    options: [
      {
        long: ['diff-program'],
        takes: 'value',
        runs: 'compares through the program its value names',
      },
    ],
  },
  {
    // find's actions are words of its expression, never abbreviated.
    names: ['find', 'gfind'],
    words: [
      {
        match: /^-(exec|execdir|ok|okdir)$/,
        runs: 'runs the program named after it for each file',
      },
      { match: /^-(fprint|fprint0|fprintf|fls)$/, runs: 'writes the file named after it' },
      { match: /^-delete$/, runs: 'deletes the files it finds' },
    ],
  },
  {
    names: ['fd', 'fdfind'],
    options: [
      {
        long: ['exec', 'exec-batch'],
        short: 'xX',
        takes: 'value',
        runs: 'runs the program named after it for the results',
      },
    ],
  },
  {
    names: ['rg'],
    options: [
      {
        long: ['pre'],
        takes: 'value',
        runs: 'runs its value as a preprocessor on every file searched',
      },
    ],
  },
  {
    names: ['rsync'],
    abbreviations: true,
    options: [
      {
        long: ['rsh'],
        short: 'e',
        takes: 'value',
        runs: 'reaches the other side through the program its value names',
      },
      { long: ['rsync-path'], takes: 'value', runs: 'runs its value as the remote rsync' },
    ],
  },
  {
    names: ['ssh'],
    options: [
      ...SSH_CONFIG,
      { short: 'I', takes: 'value', runs: 'loads a PKCS#11 library: native code' },
    ],
  },
  {
    names: ['scp', 'sftp'],
    options: [
      ...SSH_CONFIG,
      { short: 'S', takes: 'value', runs: 'connects through the program its value names' },
      { short: 'D', takes: 'value', runs: 'runs the sftp server program its value names' },
    ],
  },
  {
    // zip's own parser reads -TT as one option.
    names: ['zip'],
    abbreviations: true,
    options: [
      {
        long: ['unzip-command'],
        takes: 'value',
        runs: 'tests the archive with the program its value names',
      },
    ],
    words: [
      { match: /^-[^-]*TT/, runs: 'tests the archive with the program named after it (-TT)' },
    ],
  },
  {
    names: ['wget'],
    abbreviations: true,
    options: [
      {
        long: ['use-askpass'],
        takes: 'value',
        runs: 'runs the program its value names for passwords',
      },
      {
        long: ['execute'],
        short: 'e',
        takes: 'value',
        runs: 'runs a wgetrc command, among them use_askpass',
      },
    ],
  },
  {
    names: ['man'],
    abbreviations: true,
    options: [
      {
        long: ['pager'],
        short: 'P',
        takes: 'value',
        runs: 'pages through the program its value names',
      },
      { long: ['html'], short: 'H', takes: 'optional', runs: 'opens a browser program' },
    ],
  },
  {
    names: ['vim', 'vi', 'nvim', 'view', 'vimdiff', 'ex', 'gvim'],
    options: [
      {
        long: ['cmd'],
        short: 'cus',
        takes: 'value',
        runs: 'runs editor commands (and through them `!` shell commands)',
      },
      { short: 'S', takes: 'optional', runs: 'sources a script of editor commands' },
    ],
    words: [{ match: /^\+/, runs: 'runs an editor command on start' }],
  },
  // ed reads a file name that starts with `!` as a shell command whose output it edits.
  { names: ['ed'], words: [{ match: /^!/, runs: 'runs its `!` operand as a shell command' }] },
  {
    names: ['make', 'gmake'],
    abbreviations: true,
    options: [
      {
        long: ['eval'],
        short: 'E',
        takes: 'value',
        runs: 'evaluates make code, which runs commands through $(shell)',
      },
      {
        long: [
          'directory',
          'file',
          'makefile',
          'include-dir',
          'old-file',
          'what-if',
          'assume-old',
          'assume-new',
          'new-file',
        ],
        short: 'CfIoW',
        takes: 'value',
      },
    ],
    // A variable set on the command line overrides the Makefile's: CC=…, SHELL=….
    words: [
      {
        match: /^[A-Za-z_.][\w.-]*\s*(\+|\?|!|:{1,3})?=/,
        runs: 'sets a make variable, which can replace a command a recipe runs',
      },
    ],
  },
  {
    // -c, also in a cluster (-lc, -ec) or after +o/-o options.
    names: ['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'rbash', 'yash', 'posh'],
    words: [{ match: /^[-+][^-]*c/, runs: 'runs the shell line in its arguments (-c)' }],
  },
  {
    names: ['fish'],
    words: [
      {
        match: /^-[^-]*[cC]|^--(command|init-command)/,
        runs: 'runs the shell line in its arguments',
      },
    ],
  },
  {
    names: ['python', 'python2', 'python3', 'python3.*', 'pypy', 'pypy3'],
    words: [{ match: /^-[^-]*c/, runs: 'runs the Python code in its arguments (-c)' }],
  },
  {
    names: ['node', 'nodejs', 'bun', 'deno'],
    ...INTERPRETER('ep', 'JavaScript', ['eval', 'print']),
  },
  { names: ['perl', 'perl5*'], ...INTERPRETER('eEMm', 'Perl') },
  { names: ['ruby'], ...INTERPRETER('e', 'Ruby') },
  { names: ['php', 'php*'], ...INTERPRETER('rBRFE', 'PHP') },
  { names: ['lua', 'lua5*', 'luajit'], ...INTERPRETER('e', 'Lua') },
  {
    names: ['npm', 'pnpm', 'yarn'],
    abbreviations: true,
    options: [
      {
        long: ['script-shell', 'node-options'],
        takes: 'value',
        runs: 'runs scripts through the program or options its value names',
      },
    ],
    subcommands: {
      exec: { always: NAMED_PROGRAM },
      x: { always: NAMED_PROGRAM },
      dlx: { always: NAMED_PROGRAM },
    },
  },
  {
    names: ['hg'],
    abbreviations: true,
    options: [
      {
        long: ['config'],
        takes: 'value',
        runs: 'sets any config, among them hooks and shell aliases',
      },
    ],
  },
  {
    names: ['svn'],
    abbreviations: true,
    options: [
      {
        long: ['config-option', 'config-dir'],
        takes: 'value',
        runs: 'sets config, among it the editor and diff programs',
      },
      {
        long: ['editor-cmd', 'diff-cmd', 'diff3-cmd'],
        takes: 'value',
        runs: 'runs the program its value names',
      },
    ],
  },
  // Prefixes and wrappers: the program they run is an argument, so no rule about them can say
  // what runs. Run the program directly instead.
  {
    names: [
      'env',
      'xargs',
      'timeout',
      'nice',
      'nohup',
      'stdbuf',
      'chroot',
      'setsid',
      'ionice',
      'taskset',
      'flock',
      'unshare',
      'nsenter',
      'sudo',
      'doas',
      'su',
      'runuser',
      'pkexec',
      'busybox',
      'toybox',
      'watch',
      'time',
      'strace',
      'ltrace',
      'valgrind',
      'gdb',
      'parallel',
      'script',
      'run-parts',
      'systemd-run',
      'setpriv',
      'chrt',
      'prlimit',
      'numactl',
      'capsh',
      'fakeroot',
      'firejail',
      'bwrap',
      'proot',
      'xvfb-run',
      'dbus-run-session',
      'ssh-agent',
      'tmux',
      'screen',
      'npx',
      'expect',
      'entr',
      'catchsegv',
      'unbuffer',
      'exec',
      'command',
      'builtin',
      'eval',
      'sg',
      'start-stop-daemon',
    ],
    always: NAMED_PROGRAM,
  },
];
