/**
 * The bubblewrap command line for one confined process. The view is an allowlist: an empty
 * root with the system folders bound read-only (system-view.ts), a fresh /dev and /proc, a
 * private /tmp, the workspace and granted paths bound (rw or ro), denied paths inside any of
 * those masked (a denial always wins over a grant: a grant equal to or inside a denied path is
 * not bound; the workspace is the one folder shown inside one, the data dir), and the root
 * itself read-only. New PID/IPC/UTS (and, without a network grant,
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
  /** Symlinks recreated on the way to a mount (where nothing bound already holds them). */
  links?: readonly ViewEntry[];
  /** Existing denied paths (real paths), masked by an empty tmpfs or /dev/null where visible. */
  denied: readonly DeniedEntry[];
  network: boolean;
  cwd: string;
  /** Running as root: drop every capability (an unprivileged bwrap has none to drop). */
  asRoot: boolean;
  /** The whole host root, writable (filesystem mode `full`): no allowlist. */
  writableRoot?: boolean;
  /** A fresh empty folder made for HOME (inside the private /tmp). */
  home?: string;
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
  if (plan.home) steps.push({ path: plan.home, args: ['--dir', plan.home] });
  const binds: Mount[] = [];
  if (plan.workspaceMode !== 'hidden')
    binds.push({ path: plan.workspace, mode: plan.workspaceMode });
  // A denial always wins: a grant equal to or inside a denied path is not bound at all.
  for (const mount of plan.mounts) {
    if (!plan.denied.some((entry) => inside(entry.path, mount.path))) binds.push(mount);
  }
  for (const bind of binds) {
    steps.push({
      path: bind.path,
      args: [bind.mode === 'rw' ? '--bind' : '--ro-bind', bind.path, bind.path],
    });
    visible.push(bind.path);
  }
  // A link inside a bound folder is already there as it is on the host, and one in the system
  // view (/bin on a merged-/usr system) is recreated with it.
  const held = [...visible, ...(plan.writableRoot ? [] : plan.system.map((entry) => entry.path))];
  for (const entry of plan.links ?? []) {
    if (entry.link === undefined || held.some((shown) => inside(shown, entry.path))) continue;
    steps.push({ path: entry.path, args: ['--symlink', entry.link, entry.path] });
  }

  // A denied path is masked where the deepest thing around it is something shown; one whose
  // deepest surrounding is another denied folder is already hidden by it (masking again would
  // stack a tmpfs on a read-only tmpfs, which the kernel refuses), unless a bind inside that
  // folder (the workspace inside the data dir) shows it again.
  const denied = plan.denied.filter((entry) => {
    let shown = -1;
    for (const at of visible) if (inside(at, entry.path)) shown = Math.max(shown, depth(at));
    if (shown < 0) return false;
    return !plan.denied.some(
      (outer) =>
        outer.kind === 'dir' &&
        outer.path !== entry.path &&
        inside(outer.path, entry.path) &&
        depth(outer.path) >= shown,
    );
  });
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
