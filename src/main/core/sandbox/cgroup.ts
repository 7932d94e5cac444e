/**
 * A pids cgroup per sandboxed process tree, used when Pincer runs as root: the kernel never
 * applies RLIMIT_NPROC to the host's root user, so a fork bomb is stopped by `pids.max` instead.
 * Works with a writable cgroup v1 `pids` hierarchy or a cgroup v2 tree with the pids controller.
 */
import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

let counter = 0;

/** The folder new pids cgroups can be made in, or undefined. Probed by making one. */
export function findPidsCgroupRoot(): string | undefined {
  const candidates = ['/sys/fs/cgroup/pids', '/sys/fs/cgroup/unified', '/sys/fs/cgroup'];
  for (const root of candidates) {
    try {
      if (!root.endsWith('/pids')) {
        const controllers = readFileSync(path.join(root, 'cgroup.subtree_control'), 'utf8');
        if (!controllers.split(/\s+/).includes('pids')) continue;
      }
      const probe = path.join(root, `pincer-probe-${process.pid}`);
      mkdirSync(probe);
      const ok = readFileSync(path.join(probe, 'pids.max'), 'utf8').length > 0;
      rmdirSync(probe);
      if (ok) return root;
    } catch {
      // Not this one.
    }
  }
  return undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the cgroups of Pincer processes that are gone. A process killed outright (or one that
 * exits while its workers are still being reaped) cannot remove its own; the next start does.
 * rmdir only succeeds on an empty cgroup, so a tree still running is never touched.
 */
export function sweepStaleCgroups(root: string): number {
  let removed = 0;
  for (const name of readdirSync(root)) {
    const owner = /^pincer-(?:probe-)?(\d+)(?:-\d+)?$/.exec(name);
    if (!owner || alive(Number(owner[1]))) continue;
    try {
      rmdirSync(path.join(root, name));
      removed += 1;
    } catch {
      // Still has processes, or not ours to remove.
    }
  }
  return removed;
}

export interface PidsCgroup {
  dir: string;
  /** `sh -c` prefix that moves itself into the cgroup, then execs the rest. */
  prefix: string[];
  remove(): Promise<void>;
}

export function createPidsCgroup(root: string, maxProcesses: number): PidsCgroup {
  counter += 1;
  const dir = path.join(root, `pincer-${process.pid}-${counter}`);
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'pids.max'), String(maxProcesses));
  const script = 'echo $$ > "$1/cgroup.procs" || exit 125; shift; exec "$@"';
  return {
    dir,
    prefix: ['/bin/sh', '-c', script, 'pincer-cgroup', dir],
    async remove() {
      for (let attempt = 0; attempt < 100; attempt++) {
        try {
          rmdirSync(dir);
          return;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
          // Busy while the kernel reaps the last processes of the tree: try again shortly.
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }
    },
  };
}
