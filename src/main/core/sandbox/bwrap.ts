/**
 * The bubblewrap command line for one confined process. The view is an allowlist: an empty
 * root with the system folders bound read-only (system-view.ts), a fresh /dev and /proc, a
 * private /tmp, the workspace and granted paths bound (rw or ro), denied paths inside any of
 * those masked, and the root itself read-only. New PID/IPC/UTS (and, without a network grant,
 * network) namespaces, a new session so the tool cannot reach the terminal, and death with its
 * parent. Pure: the caller checks the paths.
 */
import path from 'node:path';
import type { Mount } from './settings.js';
import type { ViewEntry } from './system-view.js';

export interface DeniedEntry {
  path: string;
  kind: 'dir' | 'file';
}

export interface ConfinementPlan {
  /** The host's system folders shown read-only (ignored under `writableRoot`). */
  system: readonly ViewEntry[];
  /** Bound read-write unless `workspaceMode` says otherwise. */
  workspace: string;
  workspaceMode: 'rw' | 'ro' | 'hidden';
  mounts: readonly Mount[];
  /** Existing denied paths (real paths), masked by an empty tmpfs or /dev/null where visible. */
  denied: readonly DeniedEntry[];
  network: boolean;
  cwd: string;
  /** Running as root: drop every capability (an unprivileged bwrap has none to drop). */
  asRoot: boolean;
  /** The whole host root, writable (filesystem mode `full`): no allowlist. */
  writableRoot?: boolean;
}

function inside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

const depth = (target: string) => target.split('/').filter(Boolean).length;

interface MountStep {
  path: string;
  args: string[];
}

export function bwrapArgs(plan: ConfinementPlan): string[] {
  const steps: MountStep[] = [];
  const visible: string[] = [];
  if (plan.writableRoot) {
    steps.push({ path: '/', args: ['--bind', '/', '/'] });
    visible.push('/');
  } else {
    for (const entry of plan.system) {
      if (entry.link !== undefined) {
        steps.push({ path: entry.path, args: ['--symlink', entry.link, entry.path] });
      } else {
        steps.push({ path: entry.path, args: ['--ro-bind', entry.path, entry.path] });
        visible.push(entry.path);
      }
    }
  }
  steps.push(
    { path: '/dev', args: ['--dev', '/dev'] },
    { path: '/proc', args: ['--proc', '/proc'] },
    { path: '/tmp', args: ['--tmpfs', '/tmp'] },
  );
  const binds: Mount[] = [];
  if (plan.workspaceMode !== 'hidden')
    binds.push({ path: plan.workspace, mode: plan.workspaceMode });
  binds.push(...plan.mounts);
  for (const bind of binds) {
    steps.push({
      path: bind.path,
      args: [bind.mode === 'rw' ? '--bind' : '--ro-bind', bind.path, bind.path],
    });
    visible.push(bind.path);
  }

  // Only what is in view needs a mask; a denied folder inside another is already hidden by the
  // outer one (masking again would stack a tmpfs on a read-only tmpfs, which the kernel
  // refuses). A path granted explicitly (a mount equal to a denied path) is the user's choice:
  // the grant wins, as it does for the file tools.
  const granted = new Set(binds.map((bind) => bind.path));
  const denied = plan.denied.filter(
    (entry) =>
      !granted.has(entry.path) &&
      visible.some((shown) => inside(shown, entry.path)) &&
      !plan.denied.some(
        (outer) =>
          outer.kind === 'dir' && outer.path !== entry.path && inside(outer.path, entry.path),
      ),
  );
  for (const entry of denied) {
    steps.push({
      path: entry.path,
      args: entry.kind === 'dir' ? ['--tmpfs', entry.path] : ['--ro-bind', '/dev/null', entry.path],
    });
  }

  // Outer paths first (a stable sort keeps the order above among equals): a mount inside
  // another must come after it, whether a grant inside a mask (the workspace inside a denied
  // folder of a granted home), a mask inside a grant, or the installation around a workspace.
  steps.sort((a, b) => depth(a.path) - depth(b.path));
  const args = steps.flatMap((step) => step.args);
  args.push(
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--new-session',
    '--die-with-parent',
  );
  if (!plan.network) args.push('--unshare-net');
  // Unprivileged bwrap always makes a user namespace; saying so keeps RLIMIT_NPROC counted per
  // sandbox (kernel >= 5.14). Root keeps its uid but loses every capability.
  if (plan.asRoot) args.push('--cap-drop', 'ALL');
  else args.push('--unshare-user');
  // Empty masks and the root turn read-only last: the mount points inside them are made.
  for (const entry of denied.filter((e) => e.kind === 'dir')) args.push('--remount-ro', entry.path);
  if (!plan.writableRoot) args.push('--remount-ro', '/');
  args.push('--chdir', plan.cwd);
  return args;
}
