/**
 * git in the program table: its own options, the transports and subcommands that run a command
 * or an upload/receive pack named in an option, and the config keys that name programs.
 */
import { type OptionEntry, type ProgramModel, SHELL_LINE } from './program-entry.js';

const GIT_CONFIG_FILE_OPTIONS: OptionEntry = {
  long: ['file', 'blob', 'type', 'default', 'comment', 'value'],
  short: 'f',
  takes: 'value',
};

export const GIT: ProgramModel = {
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
