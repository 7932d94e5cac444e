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
import type { ReaderName } from './script-readers.js';

export interface OptionEntry {
  long?: readonly string[];
  short?: string;
  takes?: 'value' | 'optional';
  /** What using the option runs (or writes); any use counts, whatever its value. */
  runs?: string;
  /** A reader for its value (git -c key=value). */
  reads?: ReaderName;
  /** It gives the script, so operands are files (sed -e/-f, awk -f); its value joins the script. */
  script?: boolean;
  /** Spelled in full, it makes the script and operand readers stand down (sed --sandbox). */
  disarms?: boolean;
}

export interface WordEntry {
  /** Any argument word that matches, wherever it stands. */
  match: RegExp;
  runs: string;
}

export interface ProgramEntry {
  /** Every call runs another program. */
  always?: string;
  options?: readonly OptionEntry[];
  abbreviations?: boolean;
  /** A first argument without a dash is a cluster of short options (`tar xzf a.tgz`). */
  bundledFirst?: boolean;
  /** Options end at the first operand (git's own options, before the subcommand). */
  optionsFirst?: boolean;
  words?: readonly WordEntry[];
  /** The first operand is a script for this reader, unless an option gave the script. */
  script?: ReaderName;
  /** Every operand goes to this reader. */
  operands?: ReaderName;
  /** A first operand naming a subcommand is read with that subcommand's entry. */
  subcommands?: Readonly<Record<string, ProgramEntry>>;
}

export interface ProgramModel extends ProgramEntry {
  /** Program names as run (the basename); `*` stands for any characters. */
  names: readonly string[];
}

const NAMED_PROGRAM = 'runs the program named in its arguments';
const SHELL_LINE = 'runs the shell command in its value';

const GIT_CONFIG_FILE_OPTIONS: OptionEntry = {
  long: ['file', 'blob', 'type', 'default', 'comment', 'value'],
  short: 'f',
  takes: 'value',
};

const GIT: ProgramModel = {
  names: ['git'],
  optionsFirst: true,
  options: [
    // -c alias.x=!cmd, core.pager=…, core.sshCommand=…: the key decides.
    { short: 'c', takes: 'value', reads: 'git-config-pair' },
    { long: ['config-env'], takes: 'value', reads: 'git-config-pair' },
    // git-<command> programs from another folder.
    { long: ['exec-path'], takes: 'optional', runs: 'runs git programs from the folder it names' },
    { short: 'C', takes: 'value' },
    {
      long: ['git-dir', 'work-tree', 'namespace', 'super-prefix', 'attr-source', 'list-cmds'],
      takes: 'value',
    },
  ],
  // The ext:: transport runs the command in the URL.
  words: [{ match: /^ext::/i, runs: 'names the ext:: transport, which runs a command' }],
  subcommands: {
    clone: {
      abbreviations: true,
      options: [
        { long: ['upload-pack'], short: 'u', takes: 'value', runs: SHELL_LINE },
        { long: ['config'], short: 'c', takes: 'value', reads: 'git-config-pair' },
        // The template's hooks are copied in, and clone runs post-checkout at once.
        {
          long: ['template'],
          takes: 'value',
          runs: 'installs and runs hooks from the folder it names',
        },
        {
          long: ['origin', 'branch', 'jobs', 'reference', 'separate-git-dir'],
          short: 'obj',
          takes: 'value',
        },
      ],
    },
    init: {
      abbreviations: true,
      options: [
        { long: ['template'], takes: 'value', runs: 'installs hooks from the folder it names' },
      ],
    },
    fetch: {
      abbreviations: true,
      options: [{ long: ['upload-pack'], takes: 'value', runs: SHELL_LINE }],
    },
    pull: {
      abbreviations: true,
      options: [{ long: ['upload-pack'], takes: 'value', runs: SHELL_LINE }],
    },
    // --exec is ls-remote's hidden spelling of --upload-pack.
    'ls-remote': {
      abbreviations: true,
      options: [{ long: ['upload-pack', 'exec'], takes: 'value', runs: SHELL_LINE }],
    },
    'fetch-pack': {
      abbreviations: true,
      options: [{ long: ['upload-pack', 'exec'], takes: 'value', runs: SHELL_LINE }],
    },
    push: {
      abbreviations: true,
      options: [{ long: ['receive-pack', 'exec'], takes: 'value', runs: SHELL_LINE }],
    },
    'send-pack': {
      abbreviations: true,
      options: [{ long: ['receive-pack', 'exec'], takes: 'value', runs: SHELL_LINE }],
    },
    archive: {
      abbreviations: true,
      options: [{ long: ['exec'], takes: 'value', runs: SHELL_LINE }],
    },
    rebase: {
      abbreviations: true,
      options: [
        {
          long: ['exec'],
          short: 'x',
          takes: 'value',
          runs: 'runs the shell command in its value after each commit',
        },
        { long: ['onto', 'strategy', 'strategy-option'], short: 'sX', takes: 'value' },
      ],
    },
    grep: {
      abbreviations: true,
      options: [
        {
          long: ['open-files-in-pager'],
          short: 'O',
          takes: 'optional',
          runs: 'opens the matches in the pager program its value names',
        },
        {
          long: ['max-depth', 'threads', 'max-count', 'context', 'after-context', 'before-context'],
          short: 'efABCm',
          takes: 'value',
        },
      ],
    },
    // The tool is named by -x/--extcmd, -t/--tool or the config: any program.
    difftool: { always: 'runs a diff tool program' },
    mergetool: { always: 'runs a merge tool program' },
    submodule: { subcommands: { foreach: { always: 'runs a shell command in each submodule' } } },
    bisect: {
      subcommands: { run: { always: 'runs the program named in its arguments at each step' } },
    },
    'filter-branch': { always: 'runs the shell commands given as filters' },
    instaweb: { always: 'starts a web server and a browser program' },
    'send-email': { always: 'runs mail programs (--sendmail-cmd, --to-cmd, --smtp-server)' },
    'web--browse': { always: 'runs a browser program' },
    hook: { always: "runs the repository's hook programs" },
    maintenance: {
      subcommands: { start: { always: 'installs a system schedule that runs git later' } },
    },
    daemon: {
      abbreviations: true,
      options: [
        {
          long: ['access-hook'],
          takes: 'value',
          runs: 'runs the program its value names per request',
        },
      ],
    },
    config: {
      abbreviations: true,
      operands: 'git-config-operands',
      options: [
        // Reading and removing never run anything.
        {
          long: [
            'get',
            'get-all',
            'get-regexp',
            'get-urlmatch',
            'list',
            'unset',
            'unset-all',
            'remove-section',
            'get-color',
            'get-colorbool',
          ],
          short: 'l',
          disarms: true,
        },
        { long: ['edit'], short: 'e', runs: 'opens the config in the editor program' },
        {
          long: ['rename-section'],
          runs: 'renames a section, which can make its keys run code (alias, core, filter)',
        },
        GIT_CONFIG_FILE_OPTIONS,
      ],
      subcommands: {
        set: {
          abbreviations: true,
          operands: 'git-config-operands',
          options: [GIT_CONFIG_FILE_OPTIONS],
        },
        edit: { always: 'opens the config in the editor program' },
        'rename-section': { always: 'renames a section, which can make its keys run code' },
        get: {},
        list: {},
        unset: {},
        'remove-section': {},
      },
    },
  },
};

const SED: ProgramModel = {
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

const AWK: ProgramModel = {
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
