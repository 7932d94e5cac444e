/**
 * Which OS confinement this machine offers, chosen once at start-up and probed by running it:
 * bubblewrap on Linux, Seatbelt (sandbox-exec) on macOS, else a process-level backend (own
 * process group, resource limits, minimal environment) that says plainly what it cannot do.
 * A configured level the backend cannot enforce fails loudly (CKP -32010).
 */
import { execFile } from 'node:child_process';
import { constants as fsConstants } from 'node:fs';
import { access } from 'node:fs/promises';
import { promisify } from 'node:util';
import { bwrapArgs, type ConfinementPlan } from './bwrap.js';
import { findPidsCgroupRoot, sweepStaleCgroups } from './cgroup.js';
import { SANDBOX_DENIED, SandboxError } from './errors.js';
import type { SandboxLevel } from './settings.js';
import { systemView } from './system-view.js';

const execFileAsync = promisify(execFile);

export type BackendKind = 'bwrap' | 'seatbelt' | 'process';

export interface BackendInfo {
  kind: BackendKind;
  /** One line: why this backend is the active one. */
  reason: string;
  /** What this backend does not enforce here. */
  warnings: string[];
  asRoot: boolean;
  /** How resource limits are set: prlimit(1), the shell's ulimit, or not at all (Windows). */
  limiter: 'prlimit' | 'ulimit' | 'none';
  /** Where per-call pids cgroups go (root only: RLIMIT_NPROC never binds the host's root). */
  pidsCgroupRoot?: string;
}

export interface DetectOptions {
  platform?: NodeJS.Platform;
  /** Skip the OS backends (tests of the process backend, `--sandbox process`). */
  forceProcess?: boolean;
}

const PROBE_TIMEOUT_MS = 5000;

async function works(file: string, args: string[]): Promise<string | undefined> {
  try {
    await execFileAsync(file, args, { timeout: PROBE_TIMEOUT_MS });
    return undefined;
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string };
    if (failure.code === 'ENOENT') return 'not found';
    return (failure.stderr?.trim() || failure.message).split('\n')[0];
  }
}

/** The probe is the tools' own command line with no grant: an empty view that runs `true`. */
export function bwrapProbeArgs(asRoot: boolean): string[] {
  const plan: ConfinementPlan = {
    system: systemView('linux'),
    workspace: '/tmp',
    workspaceMode: 'hidden',
    mounts: [],
    denied: [],
    network: false,
    cwd: '/tmp',
    asRoot,
  };
  return [...bwrapArgs(plan), '--', 'true'];
}

export async function detectBackend(options: DetectOptions = {}): Promise<BackendInfo> {
  const platform = options.platform ?? process.platform;
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  // The two probes are child processes: run them side by side.
  const bwrapProbe =
    platform === 'linux' && !options.forceProcess
      ? works('bwrap', bwrapProbeArgs(asRoot))
      : undefined;
  const prlimit = platform === 'linux' && (await works('prlimit', ['--version'])) === undefined;
  const limiter = prlimit ? 'prlimit' : platform === 'win32' ? 'none' : 'ulimit';
  const warnings: string[] = [];
  if (limiter === 'none')
    warnings.push('no resource limits on this platform (timeouts still apply)');
  let fallbackWhy = `no OS sandbox on ${platform}`;

  if (options.forceProcess) {
    fallbackWhy = 'the process-level backend was asked for';
  } else if (platform === 'linux') {
    const failure = await bwrapProbe;
    if (failure === undefined) {
      const pidsCgroupRoot = asRoot ? findPidsCgroupRoot() : undefined;
      if (pidsCgroupRoot) sweepStaleCgroups(pidsCgroupRoot);
      if (!prlimit) warnings.push('prlimit not found: limits are set with the shell ulimit');
      if (asRoot && !pidsCgroupRoot)
        warnings.push(
          'running as root without a writable pids cgroup: max processes is not enforced',
        );
      return {
        kind: 'bwrap',
        reason: `bubblewrap works (read-only system view, private /tmp, PID and network namespaces${asRoot ? ', capabilities dropped' : ', user namespace'})`,
        warnings,
        asRoot,
        limiter,
        pidsCgroupRoot,
      };
    }
    fallbackWhy =
      failure === 'not found'
        ? 'bwrap not found (install the bubblewrap package)'
        : `bwrap is present but failed: ${failure}`;
  } else if (platform === 'darwin') {
    const found = await access('/usr/bin/sandbox-exec', fsConstants.X_OK)
      .then(() => true)
      .catch(() => false);
    if (found) {
      return {
        kind: 'seatbelt',
        reason:
          'sandbox-exec (Seatbelt) profiles: reads of denied paths, writes outside the workspace and network refused',
        warnings: ['no PID namespace on macOS: a tool sees other processes of the user'],
        asRoot,
        limiter,
      };
    }
    fallbackWhy = '/usr/bin/sandbox-exec not found';
  }
  warnings.push(
    'process-level only: tools run as separate processes with limits and a minimal environment, but the OS does not confine their files or network',
  );
  return {
    kind: 'process',
    reason: fallbackWhy,
    warnings,
    asRoot,
    limiter,
    pidsCgroupRoot: asRoot && platform === 'linux' ? findPidsCgroupRoot() : undefined,
  };
}

/** Levels each backend can honestly claim (003 §5.7): wasm and vm are not built. */
const ENFORCES: Record<BackendKind, readonly SandboxLevel[]> = {
  bwrap: ['none', 'process', 'container'],
  seatbelt: ['none', 'process', 'container'],
  process: ['none', 'process'],
};

/** Throws CKP -32010 when the configured level is beyond what the backend enforces. */
export function assertLevel(level: SandboxLevel, backend: BackendInfo): void {
  if (ENFORCES[backend.kind].includes(level)) return;
  const why =
    level === 'wasm' || level === 'vm'
      ? `Pincer has no ${level} sandbox`
      : `the ${backend.kind} backend cannot confine files and network (${backend.reason})`;
  throw new SandboxError(
    SANDBOX_DENIED,
    `the manifest asks for sandbox level "${level}", which cannot be enforced here: ${why}. Refusing to run tools unconfined.`,
  );
}
