/**
 * The bubblewrap command line for one confined process: the host root read-only, a fresh /dev,
 * /proc and /tmp, the workspace and granted paths bound (rw or ro), denied paths masked, new
 * PID/IPC/UTS (and, without a network grant, network) namespaces, a new session so the tool
 * cannot reach the terminal, and death with its parent. Pure: the caller checks the paths.
 */
import path from 'node:path';
import type { Mount } from './settings.js';

export interface DeniedEntry {
  path: string;
  kind: 'dir' | 'file';
}

export interface ConfinementPlan {
  /** Bound read-write unless `workspaceMode` says otherwise. */
  workspace: string;
  workspaceMode: 'rw' | 'ro' | 'hidden';
  mounts: readonly Mount[];
  /** Existing denied paths (real paths), masked by an empty tmpfs or /dev/null. */
  denied: readonly DeniedEntry[];
  network: boolean;
  cwd: string;
  /** Running as root: drop every capability (an unprivileged bwrap has none to drop). */
  asRoot: boolean;
  /** The whole root writable (filesystem mode `full`). */
  writableRoot?: boolean;
}

function inside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

export function bwrapArgs(plan: ConfinementPlan): string[] {
  const args = [
    plan.writableRoot ? '--bind' : '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--new-session',
    '--die-with-parent',
  ];
  if (!plan.network) args.push('--unshare-net');
  // Unprivileged bwrap always makes a user namespace; saying so keeps RLIMIT_NPROC counted per
  // sandbox (kernel >= 5.14). Root keeps its uid but loses every capability.
  if (plan.asRoot) args.push('--cap-drop', 'ALL');
  else args.push('--unshare-user');

  // A denied folder inside another is already hidden by the outer mask; masking it again
  // would stack a tmpfs on a read-only tmpfs, which the kernel refuses to remount.
  // A path granted explicitly (a mount equal to a denied path) is the user's choice: the grant
  // wins, as it does for the file tools.
  const granted = new Set([plan.workspace, ...plan.mounts.map((m) => m.path)]);
  const denied = plan.denied.filter(
    (entry) =>
      !granted.has(entry.path) &&
      !plan.denied.some(
        (outer) =>
          outer.kind === 'dir' && outer.path !== entry.path && inside(outer.path, entry.path),
      ),
  );
  const binds: Mount[] = [];
  if (plan.workspaceMode !== 'hidden')
    binds.push({ path: plan.workspace, mode: plan.workspaceMode });
  binds.push(...plan.mounts);
  // Outer folders first: a later bind of a parent would cover an inner one already made (the
  // read-only installation around a workspace, say).
  binds.sort((a, b) => a.path.length - b.path.length);
  const mask = (entry: DeniedEntry) =>
    entry.kind === 'dir' ? ['--tmpfs', entry.path] : ['--ro-bind', '/dev/null', entry.path];
  // A denied folder around a grant (the data dir around the workspace) is masked first and the
  // grant bound back into it; a denied path inside a grant is masked after the grant.
  const within = (entry: DeniedEntry) => binds.some((bind) => inside(bind.path, entry.path));
  for (const entry of denied.filter((e) => !within(e))) args.push(...mask(entry));
  for (const bind of binds)
    args.push(bind.mode === 'rw' ? '--bind' : '--ro-bind', bind.path, bind.path);
  for (const entry of denied.filter(within)) args.push(...mask(entry));
  // Empty masks turn read-only last: a grant inside one needed its mount point made first.
  for (const entry of denied.filter((e) => e.kind === 'dir')) args.push('--remount-ro', entry.path);
  args.push('--chdir', plan.cwd);
  return args;
}
