/**
 * What the tray shows, as data: a status (drives the icon and tooltip) and a menu model. The
 * Electron glue turns the model into a Menu; everything decided here is unit-tested.
 */

export type TrayStatus = 'idle' | 'working' | 'needs-approval' | 'paused';

export interface AgentSnapshot {
  activeRuns: number;
  pendingApprovals: number;
  paused: boolean;
  /** Channel messages and schedule firings held while paused. */
  held?: number;
}

/** Approvals outrank everything: a run waiting on a person is the thing to see. */
export function trayStatus(snapshot: AgentSnapshot): TrayStatus {
  if (snapshot.pendingApprovals > 0) return 'needs-approval';
  if (snapshot.activeRuns > 0) return 'working';
  if (snapshot.paused) return 'paused';
  return 'idle';
}

export function trayTooltip(snapshot: AgentSnapshot): string {
  const status = trayStatus(snapshot);
  const runs = plural(snapshot.activeRuns, 'run');
  switch (status) {
    case 'needs-approval':
      return `Pincer: ${plural(snapshot.pendingApprovals, 'approval')} waiting`;
    case 'working':
      return `Pincer: working (${runs})${snapshot.paused ? ', paused for new runs' : ''}`;
    case 'paused':
      return snapshot.held ? `Pincer: paused, ${snapshot.held} held` : 'Pincer: paused';
    case 'idle':
      return 'Pincer: idle';
  }
}

/** Icon file per status, under resources/tray/ (the glue adds the platform's template/size). */
export function trayIconName(status: TrayStatus): string {
  return `tray-${status}.png`;
}

export type TrayAction =
  | 'open'
  | 'new-chat'
  | 'pause'
  | 'resume'
  | 'show-approvals'
  | 'toggle-start-at-login'
  | 'quit';

export type TrayMenuItem =
  | { kind: 'action'; action: TrayAction; label: string; enabled: boolean }
  | { kind: 'checkbox'; action: TrayAction; label: string; checked: boolean }
  | { kind: 'separator' };

/** Preferences the menu shows next to the agent's state. */
export interface TrayPreferences {
  startAtLogin: boolean;
}

export function trayMenu(
  snapshot: AgentSnapshot,
  preferences: TrayPreferences = { startAtLogin: false },
): TrayMenuItem[] {
  const pending = snapshot.pendingApprovals;
  return [
    { kind: 'action', action: 'open', label: 'Open Pincer', enabled: true },
    { kind: 'action', action: 'new-chat', label: 'New chat', enabled: true },
    { kind: 'separator' },
    {
      kind: 'action',
      action: 'show-approvals',
      label: pending > 0 ? `${plural(pending, 'approval')} pending…` : 'No approvals pending',
      enabled: pending > 0,
    },
    snapshot.paused
      ? {
          kind: 'action',
          action: 'resume',
          label: snapshot.held ? `Resume the agent (${snapshot.held} held)` : 'Resume the agent',
          enabled: true,
        }
      : { kind: 'action', action: 'pause', label: 'Pause the agent', enabled: true },
    { kind: 'separator' },
    {
      kind: 'checkbox',
      action: 'toggle-start-at-login',
      label: 'Start at login',
      checked: preferences.startAtLogin,
    },
    { kind: 'action', action: 'quit', label: 'Quit Pincer', enabled: true },
  ];
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
