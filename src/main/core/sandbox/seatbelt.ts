/**
 * A macOS Seatbelt profile (sandbox-exec -p) with the same shape as the bwrap plan: reads
 * allowed except denied paths, writes only to the workspace, granted rw paths and temp, network
 * only when granted. Type-checked here; it needs a Mac to run.
 */
import type { ConfinementPlan } from './bwrap.js';

const quote = (value: string) => JSON.stringify(value);

export function seatbeltProfile(plan: ConfinementPlan): string {
  const lines = [
    '(version 1)',
    '(deny default)',
    '(allow process-exec process-fork)',
    '(allow signal (target same-sandbox))',
    '(allow sysctl-read mach-lookup ipc-posix-shm file-read-metadata)',
    '(allow file-read*)',
    '(allow file-write* (subpath "/private/tmp") (subpath "/private/var/folders") (literal "/dev/null") (literal "/dev/tty"))',
  ];
  if (plan.writableRoot) lines.push('(allow file-write*)');
  if (plan.workspaceMode === 'rw')
    lines.push(`(allow file-write* (subpath ${quote(plan.workspace)}))`);
  if (plan.workspaceMode === 'hidden')
    lines.push(`(deny file-read* (subpath ${quote(plan.workspace)}))`);
  for (const mount of plan.mounts) {
    if (mount.mode === 'rw') lines.push(`(allow file-write* (subpath ${quote(mount.path)}))`);
  }
  // Later rules win in SBPL: the denials come last so no grant reopens them.
  for (const entry of plan.denied) {
    const filter = entry.kind === 'dir' ? 'subpath' : 'literal';
    lines.push(`(deny file-read* file-write* (${filter} ${quote(entry.path)}))`);
  }
  if (plan.network) lines.push('(allow network*)');
  return lines.join('\n');
}
