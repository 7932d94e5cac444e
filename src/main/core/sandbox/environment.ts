/**
 * The environment a tool starts with: a fixed minimal set, plus variables the caller passes,
 * minus anything that looks like a credential unless a grant names it. A tool that dumps its
 * environment finds no API key to steal.
 *
 * Then, for every confined process (commands, tool workers, MCP servers), the workspace must
 * not configure the tools it runs: HOME is a fresh empty folder per process, and the variables
 * through which files or values change what a program runs are dropped or pinned (git, Python,
 * Node, npm, the loader, shells).
 */
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE)/i;

export const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';

export interface EnvironmentOptions {
  /** Where HOME points until the launch gives the process a fresh one. */
  home: string;
  /** Variables offered to tools (the context's env); credentials among them are dropped. */
  offered?: Record<string, string>;
  /** Names a grant explicitly lets through, credentials included. */
  granted?: readonly string[];
  /** Where the granted names are looked up when `offered` lacks them. */
  source?: NodeJS.ProcessEnv;
  /** The program search path (not a secret; the host's, so tools find what the user has). */
  path?: string;
}

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

export function minimalEnvironment(options: EnvironmentOptions): Record<string, string> {
  const env: Record<string, string> = {
    PATH: options.path ?? DEFAULT_PATH,
    HOME: options.home,
    TMPDIR: '/tmp',
    LANG: 'C.UTF-8',
  };
  const granted = new Set(options.granted ?? []);
  for (const [name, value] of Object.entries(options.offered ?? {})) {
    if (!isSecretName(name) || granted.has(name)) env[name] = value;
  }
  for (const name of granted) {
    const value = options.offered?.[name] ?? options.source?.[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/**
 * Variables that make a program load or run something else, or read its settings from a path
 * the workspace can supply: never passed to a confined process, whoever offers them.
 */
const INJECTION_NAMES = new Set([
  // The loader.
  'LD_PRELOAD',
  'LD_LIBRARY_PATH',
  'LD_AUDIT',
  'GCONV_PATH',
  'LOCPATH',
  'HOSTALIASES',
  // Node and npm.
  'NODE_OPTIONS',
  'NODE_PATH',
  'NODE_REPL_EXTERNAL_MODULE',
  // Python.
  'PYTHONPATH',
  'PYTHONHOME',
  'PYTHONSTARTUP',
  'PYTHONUSERBASE',
  'PYTHONINSPECT',
  'PYTHONBREAKPOINT',
  'PYTHONEXECUTABLE',
  // Other interpreters.
  'PERL5LIB',
  'PERLLIB',
  'PERL5OPT',
  'RUBYLIB',
  'RUBYOPT',
  'JAVA_TOOL_OPTIONS',
  'JDK_JAVA_OPTIONS',
  '_JAVA_OPTIONS',
  'CLASSPATH',
  // Shells and the programs they call.
  'BASH_ENV',
  'ENV',
  'ZDOTDIR',
  'PROMPT_COMMAND',
  'SHELLOPTS',
  'BASHOPTS',
  'PS4',
  'EDITOR',
  'VISUAL',
  'PAGER',
  'MANPAGER',
  'LESSOPEN',
  'LESSCLOSE',
  'BROWSER',
  'INPUTRC',
  'CURL_HOME',
  'WGETRC',
  // SSH.
  'SSH_AUTH_SOCK',
  'SSH_ASKPASS',
  'GIT_SSH',
  'GIT_SSH_COMMAND',
]);

/** Every git variable but ours (GIT_DIR, GIT_EXEC_PATH, GIT_ASKPASS, GIT_CONFIG_PARAMETERS...). */
const INJECTION_PREFIXES = ['GIT_', 'NPM_CONFIG_', 'DYLD_', 'XDG_'];

export function isInjectionName(name: string): boolean {
  const upper = name.toUpperCase();
  return INJECTION_NAMES.has(upper) || INJECTION_PREFIXES.some((p) => upper.startsWith(p));
}

/**
 * git settings pinned at command-line precedence (above the repository's own .git/config): a
 * cloned repository cannot make `git status` or `git checkout` run its fsmonitor, hooks, pager,
 * editor, ssh command or the ext:: transport.
 */
const GIT_PINNED: ReadonlyArray<readonly [string, string]> = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.pager', 'cat'],
  ['core.editor', 'false'],
  ['sequence.editor', 'false'],
  ['core.sshCommand', 'ssh'],
  ['core.askPass', ''],
  ['credential.helper', ''],
  ['protocol.ext.allow', 'never'],
  ['gpg.program', 'gpg'],
  ['gpg.ssh.program', 'ssh-keygen'],
  ['gpg.x509.program', 'gpgsm'],
];

/**
 * `base` without the injection variables, with HOME (and the XDG folders) in `home`, a fresh
 * empty folder, and the protective settings for git, Python and npm.
 */
export function confinedEnvironment(
  base: Record<string, string>,
  home: string,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) if (!isInjectionName(name)) env[name] = value;
  Object.assign(env, {
    HOME: home,
    XDG_CONFIG_HOME: `${home}/.config`,
    XDG_DATA_HOME: `${home}/.local/share`,
    XDG_CACHE_HOME: `${home}/.cache`,
    XDG_STATE_HOME: `${home}/.local/state`,
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_COUNT: String(GIT_PINNED.length),
    PYTHONNOUSERSITE: '1',
    // A project .npmrc in the workspace cannot choose the programs npm runs.
    npm_config_git: 'git',
    npm_config_script_shell: '/bin/sh',
    npm_config_shell: '/bin/sh',
  });
  GIT_PINNED.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}
