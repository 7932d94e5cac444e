/**
 * Turns "run this argv, confined" into the real command line for the active backend:
 * [pids cgroup shell] -> bwrap | sandbox-exec -> prlimit | ulimit -> the program. The system
 * view and the denied paths are resolved once (real paths; missing ones need no mask).
 */
import { realpathSync, statSync } from 'node:fs';
import type { BackendInfo } from './backend.js';
import { bwrapArgs, type ConfinementPlan, type DeniedEntry } from './bwrap.js';
import { createPidsCgroup } from './cgroup.js';
import { type LimitOptions, prlimitArgs, ulimitScript } from './limits.js';
import { seatbeltProfile } from './seatbelt.js';
import type { Mount, ResourceLimits, SandboxSettings } from './settings.js';
import { systemView, type ViewEntry } from './system-view.js';

export interface LaunchSpec {
  argv: readonly string[];
  cwd: string;
  network: boolean;
  limits: ResourceLimits;
  worker?: boolean;
  /** Real paths the process must see read-only besides the grants (a worker's installation). */
  readOnly?: readonly string[];
}

export interface Launch {
  file: string;
  args: string[];
  /** Releases what the launch made (a cgroup); call after the process tree is gone. */
  cleanup(): Promise<void>;
}

export function existingDenied(paths: readonly string[]): DeniedEntry[] {
  const entries: DeniedEntry[] = [];
  for (const denied of paths) {
    try {
      const real = realpathSync(denied);
      entries.push({ path: real, kind: statSync(real).isDirectory() ? 'dir' : 'file' });
    } catch {
      // Missing: nothing to hide.
    }
  }
  return entries;
}

function existingMounts(mounts: readonly Mount[]): Mount[] {
  return mounts.flatMap((mount) => {
    try {
      return [{ path: realpathSync(mount.path), mode: mount.mode }];
    } catch {
      return [];
    }
  });
}

export class Launcher {
  private readonly denied: DeniedEntry[];
  private readonly mounts: Mount[];
  private readonly workspace: string;
  private readonly system: ViewEntry[];

  constructor(
    readonly backend: BackendInfo,
    readonly settings: SandboxSettings,
  ) {
    this.workspace = realpathSync(settings.workspace);
    this.system = backend.kind === 'process' ? [] : systemView();
    this.denied = existingDenied(settings.filesystem.denied).filter(
      // The workspace itself is never masked; a denied folder around it is (data dir).
      (entry) => entry.path !== this.workspace,
    );
    this.mounts = existingMounts(settings.filesystem.mounts);
  }

  plan(cwd: string, network: boolean, readOnly: readonly string[] = []): ConfinementPlan {
    const mode = this.settings.filesystem.mode;
    return {
      system: this.system,
      workspace: this.workspace,
      workspaceMode: mode === 'read-only' ? 'ro' : mode === 'deny' ? 'hidden' : 'rw',
      writableRoot: mode === 'full',
      mounts: [...this.mounts, ...existingMounts(readOnly.map((p) => ({ path: p, mode: 'ro' })))],
      denied: this.denied,
      network,
      // A hidden workspace cannot be the working directory: the private /tmp is.
      cwd: mode === 'deny' ? '/tmp' : cwd,
      asRoot: this.backend.asRoot,
    };
  }

  launch(spec: LaunchSpec): Launch {
    const options: LimitOptions = { worker: spec.worker };
    const limiter = this.backend.limiter;
    const limited =
      limiter === 'prlimit'
        ? ['prlimit', ...prlimitArgs(spec.limits, options), ...spec.argv]
        : limiter === 'ulimit'
          ? ['/bin/sh', '-c', ulimitScript(spec.limits, options), 'pincer-limits', ...spec.argv]
          : [...spec.argv];
    let confined: string[];
    if (this.backend.kind === 'bwrap') {
      confined = [
        'bwrap',
        ...bwrapArgs(this.plan(spec.cwd, spec.network, spec.readOnly)),
        '--',
        ...limited,
      ];
    } else if (this.backend.kind === 'seatbelt') {
      const profile = seatbeltProfile(this.plan(spec.cwd, spec.network, spec.readOnly));
      confined = ['/usr/bin/sandbox-exec', '-p', profile, ...limited];
    } else {
      confined = limited;
    }
    const cgroup = this.backend.pidsCgroupRoot
      ? createPidsCgroup(this.backend.pidsCgroupRoot, spec.limits.maxProcesses)
      : undefined;
    const full = [...(cgroup?.prefix ?? []), ...confined];
    return {
      file: full[0] as string,
      args: full.slice(1),
      cleanup: async () => {
        await cgroup?.remove();
      },
    };
  }
}
