/**
 * What a sandbox enforces, resolved from the manifest's Sandbox primitive (003 §5.7) with safe
 * defaults for whatever it leaves out. Paths are absolute here; `~` is expanded.
 */
import os from 'node:os';
import path from 'node:path';
import type { ShellRules } from './command-policy.js';

export type SandboxLevel = 'none' | 'process' | 'wasm' | 'container' | 'vm';
export type NetworkMode = 'deny' | 'allowlist' | 'allow-all';

export interface Mount {
  path: string;
  mode: 'ro' | 'rw';
}

export interface ResourceLimits {
  /** Wall clock per call; the whole process tree is killed when it passes (CKP -32014). */
  timeoutMs: number;
  cpuSeconds: number;
  /** Address space of a command (RLIMIT_AS); the heap of a JS worker. */
  memoryMb: number;
  maxProcesses: number;
  maxOpenFiles: number;
  maxFileBytes: number;
  maxOutputBytes: number;
}

export interface SandboxSettings {
  level: SandboxLevel;
  workspace: string;
  /** The user's home: a server's view never shows it, or a folder above it, whole. */
  home?: string;
  network: {
    mode: NetworkMode;
    /** Allowlist entries (network/host-grant.ts); only an IP literal grants an internal address. */
    allowedHosts: readonly string[];
    /** False only when ssrf_protection.block_private_ips is explicitly false. */
    blockPrivate: boolean;
  };
  filesystem: {
    mode: 'deny' | 'read-only' | 'scoped' | 'full';
    /** Granted paths besides the workspace. */
    mounts: readonly Mount[];
    /** Never visible to a tool, whatever else grants. */
    denied: readonly string[];
  };
  shell: ShellRules;
  limits: ResourceLimits;
  /** Environment variable names a grant lets into tools, credentials included. */
  passEnv: readonly string[];
}

export const DEFAULT_LIMITS: ResourceLimits = {
  timeoutMs: 120_000,
  cpuSeconds: 60,
  memoryMb: 1024,
  maxProcesses: 64,
  maxOpenFiles: 256,
  maxFileBytes: 1024 * 1024 * 1024,
  maxOutputBytes: 1024 * 1024,
};

/**
 * Always denied: keys, keychains, registry and database credentials, shell histories and the
 * password database; Pincer's data dir is added per run. Defence in depth: commands and workers
 * do not see the home at all unless a grant mounts it (the allowlist view, system-view.ts), and
 * then these stay masked inside it.
 */
export function defaultDeniedPaths(home = os.homedir()): string[] {
  return [
    ...[
      '.ssh',
      '.gnupg',
      '.aws',
      '.azure',
      '.kube',
      '.docker',
      '.netrc',
      '.git-credentials',
      '.npmrc',
      '.pypirc',
      '.pgpass',
      '.claude',
      '.bash_history',
      '.zsh_history',
      '.password-store',
      '.config/gh',
      '.config/gcloud',
      '.config/hub',
      '.config/op',
      '.local/share/keyrings',
      'Library/Keychains',
      // Tokens of common CLIs.
      '.vault-token',
      '.cargo/credentials',
      '.cargo/credentials.toml',
      '.gem/credentials',
      '.terraform.d/credentials.tfrc.json',
      '.oci',
      // Browsers' saved passwords and cookies.
      '.mozilla',
      '.config/google-chrome',
      '.config/chromium',
      '.config/BraveSoftware',
      '.config/microsoft-edge',
      '.config/vivaldi',
      'Library/Application Support/Google/Chrome',
      'Library/Application Support/Firefox',
      'Library/Application Support/BraveSoftware',
      'Library/Application Support/Microsoft Edge',
      'Library/Cookies',
    ].map((name) => path.join(home, name)),
    '/etc/shadow',
    '/etc/gshadow',
    '/etc/sudoers',
    '/Library/Keychains',
  ];
}

export interface SettingsInput {
  workspace: string;
  /** Pincer's data directory: denied to tools, except the workspace inside it. */
  dataDir?: string;
  home?: string;
  level?: SandboxLevel;
  network?: Partial<SandboxSettings['network']>;
  filesystem?: Partial<SandboxSettings['filesystem']>;
  shell?: Partial<ShellRules>;
  limits?: Partial<ResourceLimits>;
  passEnv?: readonly string[];
}

export function expandHome(value: string, home = os.homedir()): string {
  if (value === '~') return home;
  return value.startsWith('~/') ? path.join(home, value.slice(2)) : value;
}

export function sandboxSettings(input: SettingsInput): SandboxSettings {
  const home = input.home ?? os.homedir();
  const denied = [
    ...defaultDeniedPaths(home),
    ...(input.dataDir ? [path.resolve(input.dataDir)] : []),
    ...(input.filesystem?.denied ?? []).map((p) => path.resolve(expandHome(p, home))),
  ];
  const workspace = path.resolve(input.workspace);
  return {
    level: input.level ?? 'process',
    workspace,
    home,
    network: {
      mode: input.network?.mode ?? 'deny',
      allowedHosts: input.network?.allowedHosts ?? [],
      blockPrivate: input.network?.blockPrivate ?? true,
    },
    filesystem: {
      mode: input.filesystem?.mode ?? 'scoped',
      mounts: (input.filesystem?.mounts ?? [])
        .map((m) => ({ path: path.resolve(expandHome(m.path, home)), mode: m.mode }))
        .filter((m) => m.path !== workspace),
      denied: [...new Set(denied)],
    },
    shell: {
      mode: input.shell?.mode ?? 'restricted',
      blockedCommands: input.shell?.blockedCommands ?? [],
      blockedPatterns: input.shell?.blockedPatterns ?? [],
    },
    limits: { ...DEFAULT_LIMITS, ...definedOnly(input.limits ?? {}) },
    passEnv: input.passEnv ?? [],
  };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
