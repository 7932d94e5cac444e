/**
 * A macOS Seatbelt profile (sandbox-exec -p) with the same shape as the bwrap plan: reads only
 * of the system view, temp, the workspace and the grants (the home and the data dir are not in
 * it), writes only to the workspace, granted rw paths and temp, denied paths refused, network
 * only when granted. Unit-tested here; it needs a Mac to run.
 */
import type { ConfinementPlan } from './bwrap.js';

const quote = (value: string) => JSON.stringify(value);
const depth = (target: string) => target.split('/').filter(Boolean).length;

function within(parent: string, child: string): boolean {
  return child === parent || child.startsWith(parent.endsWith('/') ? parent : `${parent}/`);
}

export function seatbeltProfile(plan: ConfinementPlan): string {
  const lines = [
    '(version 1)',
    '(deny default)',
    '(allow process-exec process-fork)',
    '(allow signal (target same-sandbox))',
    // Metadata (stat, realpath of a path's parents) everywhere; contents only where listed.
    '(allow sysctl-read mach-lookup ipc-posix-shm file-read-metadata)',
    '(allow file-read* file-write* (literal "/dev/null") (literal "/dev/tty"))',
    '(allow file-read* file-write* (subpath "/private/tmp") (subpath "/private/var/folders"))',
  ];
  if (plan.writableRoot) lines.push('(allow file-read* file-write*)');
  else {
    lines.push('(allow file-read* (literal "/"))');
    for (const entry of plan.system) {
      const filter = entry.link !== undefined ? 'literal' : 'subpath';
      lines.push(`(allow file-read* (${filter} ${quote(entry.path)}))`);
    }
  }
  // SBPL applies the last matching rule, so rules go outer path first: a denial inside a grant
  // wins over it, and the workspace inside a denied folder (the data dir) wins over the denial.
  // Any other grant equal to or inside a denied path is left out: a denial always wins.
  const grants = [
    ...(plan.workspaceMode === 'hidden'
      ? []
      : [{ path: plan.workspace, mode: plan.workspaceMode }]),
    ...plan.mounts.filter((mount) => !plan.denied.some((entry) => within(entry.path, mount.path))),
  ];
  for (const entry of plan.links ?? [])
    lines.push(`(allow file-read* (literal ${quote(entry.path)}))`);
  const rules = [
    ...grants.map((grant) => ({
      path: grant.path,
      text: `(allow ${grant.mode === 'rw' ? 'file-read* file-write*' : 'file-read*'} (subpath ${quote(grant.path)}))`,
    })),
    ...plan.denied.map((entry) => ({
      path: entry.path,
      text: `(deny file-read* file-write* (${entry.kind === 'dir' ? 'subpath' : 'literal'} ${quote(entry.path)}))`,
    })),
  ];
  rules.sort((a, b) => depth(a.path) - depth(b.path));
  lines.push(...rules.map((rule) => rule.text));
  if (plan.network) lines.push('(allow network*)');
  return lines.join('\n');
}
