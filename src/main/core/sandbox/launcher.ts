/**
 * Turns "run this argv, confined" into the real command line for the active backend:
 * [pids cgroup shell] -> bwrap | sandbox-exec -> prlimit | ulimit -> the program. The system
 * view and the denied paths are resolved once (real paths; missing ones need no mask).
 */
import { mkdtempSync, realpathSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BackendInfo } from './backend.js';
import { bwrapArgs, type ConfinementPlan, type DeniedEntry } from './bwrap.js';
import { createPidsCgroup } from './cgroup.js';
import { type LimitOptions, prlimitArgs, ulimitScript } from './limits.js';
import { seatbeltProfile } from './seatbelt.js';
import type { Mount, ResourceLimits, SandboxSettings } from './settings.js';
import { outermost, systemView, type ViewEntry } from './system-view.js';

export interface LaunchSpec {
  argv: readonly string[];
  cwd: string;
  network: boolean;
  limits: ResourceLimits;
  worker?: boolean;
  /** Real paths the process must see read-only besides the grants (a worker's installation). */
  readOnly?: readonly string[];
  /** Folders a person named for this process (a server's arguments), granted like a mount. */
  granted?: readonly string[];
  /** Symlinks on the way to those, recreated where the view does not already hold them. */
  links?: readonly ViewEntry[];
}

/** Where a bwrap sandbox's HOME is made, in its private /tmp. */
export const SANDBOX_HOME = '/tmp/.pincer-home';

type ViewExtras = Pick<LaunchSpec, 'readOnly' | 'granted' | 'links'>;

export interface Launch {
  file: string;
  args: string[];
  /** The process's own HOME: a fresh empty folder, never the workspace. */
  home: string;
  /** Releases what the launch made (a cgroup); call after the process tree is gone. */
  cleanup(): Promise<void>;
}

function inside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
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

  plan(cwd: string, network: boolean, extras: ViewExtras = {}): ConfinementPlan {
    const mode = this.settings.filesystem.mode;
    // What the system view already shows read-only is not bound again (a grant there would
    // make a system folder writable).
    const fresh = (p: string) => !this.system.some((entry) => inside(entry.path, p));
    // A package inside another shown folder comes with it (hundreds of binds become a few).
    const readOnly = outermost((extras.readOnly ?? []).filter(fresh));
    // A granted argument follows the filesystem mode, as the workspace does; one that holds
    // system folders (/etc, /usr/local) is shown read-only, never made writable.
    const grantMode = (p: string) =>
      mode === 'read-only' || this.system.some((entry) => inside(p, entry.path)) ? 'ro' : 'rw';
    const granted = mode === 'deny' ? [] : (extras.granted ?? []).filter(fresh);
    return {
      system: this.system,
      workspace: this.workspace,
      workspaceMode: mode === 'read-only' ? 'ro' : mode === 'deny' ? 'hidden' : 'rw',
      writableRoot: mode === 'full',
      mounts: [
        ...this.mounts,
        ...existingMounts(granted.map((p) => ({ path: p, mode: grantMode(p) }))),
        ...existingMounts(readOnly.map((p) => ({ path: p, mode: 'ro' }))),
      ],
      links: extras.links ?? [],
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
    // A fresh empty HOME per process: inside bwrap's private /tmp, else a host temp folder
    // removed with the launch.
    let home: string;
    let made: string | undefined;
    if (this.backend.kind === 'bwrap') {
      home = SANDBOX_HOME;
      const plan = { ...this.plan(spec.cwd, spec.network, spec), home };
      confined = ['bwrap', ...bwrapArgs(plan), '--', ...limited];
    } else {
      made = mkdtempSync(path.join(os.tmpdir(), 'pincer-home-'));
      home = made;
      if (this.backend.kind === 'seatbelt') {
        const profile = seatbeltProfile(this.plan(spec.cwd, spec.network, spec));
        confined = ['/usr/bin/sandbox-exec', '-p', profile, ...limited];
      } else {
        confined = limited;
      }
    }
    const cgroup = this.backend.pidsCgroupRoot
      ? createPidsCgroup(this.backend.pidsCgroupRoot, spec.limits.maxProcesses)
      : undefined;
    const full = [...(cgroup?.prefix ?? []), ...confined];
    return {
      file: full[0] as string,
      args: full.slice(1),
      home,
      cleanup: async () => {
        await cgroup?.remove();
        if (made) await rm(made, { recursive: true, force: true });
      },
    };
  }
}
