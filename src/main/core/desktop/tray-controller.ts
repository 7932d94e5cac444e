/**
 * Keeps the tray in step with the agent: re-renders the icon, tooltip and menu when runs start
 * or end, approvals arrive or are answered, or the agent is paused; turns menu clicks into
 * actions. The view is the Electron Tray in the shell and a recorder in tests.
 */
import type { AgentActivity } from './activity.js';
import type { ApprovalSource } from './approval-router.js';
import {
  type AgentSnapshot,
  type TrayAction,
  type TrayMenuItem,
  trayIconName,
  trayMenu,
  trayStatus,
  trayTooltip,
} from './tray-state.js';

export interface TrayView {
  setImage(iconName: string): void;
  setToolTip(text: string): void;
  setMenu(items: TrayMenuItem[], onAction: (action: TrayAction) => void): void;
}

export interface TrayCommands {
  open(): void;
  newChat(): void;
  showApprovals(): void;
  /** Flips start at login (persisted by the shell); the controller re-renders after. */
  toggleStartAtLogin(): Promise<void>;
  quit(): void;
}

export class TrayController {
  private lastRendered = '';
  private readonly unsubscribers: Array<() => void> = [];

  constructor(
    private readonly deps: {
      view: TrayView;
      activity: AgentActivity;
      approvals: Pick<ApprovalSource, 'onRequest' | 'onResolved' | 'pending'>;
      commands: TrayCommands;
      startAtLogin?: () => boolean;
      /** The channels' held work, when this app serves channels. */
      held?: { held(): unknown[]; onChange(listener: () => void): () => void };
      onError?: (error: unknown) => void;
    },
  ) {}

  start(): void {
    const refresh = () => this.render();
    this.unsubscribers.push(
      this.deps.activity.onChange(refresh),
      this.deps.approvals.onRequest(refresh),
      this.deps.approvals.onResolved(refresh),
    );
    if (this.deps.held) this.unsubscribers.push(this.deps.held.onChange(refresh));
    this.render();
  }

  stop(): void {
    for (const off of this.unsubscribers.splice(0)) off();
  }

  /** Redraws after a preference shown in the menu changed elsewhere (Settings → Desktop). */
  refresh(): void {
    this.render();
  }

  snapshot(): AgentSnapshot {
    return {
      activeRuns: this.deps.activity.activeRuns,
      pendingApprovals: this.deps.approvals.pending().length,
      paused: this.deps.activity.paused,
      held: this.deps.held?.held().length ?? 0,
    };
  }

  handle(action: TrayAction): void {
    const { commands, activity } = this.deps;
    const handlers: Record<TrayAction, () => void> = {
      open: () => commands.open(),
      'new-chat': () => commands.newChat(),
      'show-approvals': () => commands.showApprovals(),
      pause: () => activity.setPaused(true),
      resume: () => activity.setPaused(false),
      'toggle-start-at-login': () => {
        commands
          .toggleStartAtLogin()
          .catch((error: unknown) => this.deps.onError?.(error))
          .finally(() => this.render());
      },
      quit: () => commands.quit(),
    };
    handlers[action]();
  }

  /** Only when something visible changed: rebuilding a native menu on every event flickers. */
  private render(): void {
    const snapshot = this.snapshot();
    const preferences = { startAtLogin: this.deps.startAtLogin?.() ?? false };
    const key = JSON.stringify([snapshot, preferences]);
    if (key === this.lastRendered) return;
    this.lastRendered = key;
    const { view } = this.deps;
    view.setImage(trayIconName(trayStatus(snapshot)));
    view.setToolTip(trayTooltip(snapshot));
    view.setMenu(trayMenu(snapshot, preferences), (action) => this.handle(action));
  }
}
