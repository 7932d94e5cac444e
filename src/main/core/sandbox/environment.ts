/**
 * The environment a tool starts with: a fixed minimal set, plus variables the caller passes,
 * minus anything that looks like a credential unless a grant names it. A tool that dumps its
 * environment finds no API key to steal.
 */
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE)/i;

export const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';

export interface EnvironmentOptions {
  /** The workspace: HOME and the working directory of commands. */
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
