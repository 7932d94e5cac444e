/**
 * Routes approvals to native surfaces when nobody can see the window (hidden in the tray or
 * minimized; merely losing focus is not enough: the card is still on screen). A notification
 * comes first and the dialog only when the person clicks it, so a modal box never jumps at
 * someone busy elsewhere; where the system shows no notifications the dialog opens at once.
 * The broker stays the single source of truth: the dialog answers the same pending entry as the
 * UI and the CLI, the first answer wins, the rule's timeout still denies, and when someone else answers first the
 * dialog is closed (its answer, if any arrives, is ignored).
 */
import type { ApprovalVerdict } from '../policy/index.js';
import {
  type ApprovalDialogModel,
  type ApprovalNotice,
  approvalDialog,
  approvalNotice,
  type RoutedApproval,
} from './approval-dialog.js';

/** Where approvals wait: the ApprovalBroker itself fits, or an adapter over the assistant. */
export interface ApprovalSource {
  onRequest(listener: (pending: RoutedApproval) => void): () => void;
  onResolved(listener: (id: string) => void): () => void;
  pending(): RoutedApproval[];
  /** First answer wins; a late answer is refused by the source, which is harmless here. */
  resolve(id: string, verdict: ApprovalVerdict, by: string): unknown;
}

/** The native side (Notification, dialog.showMessageBox), injected by the shell. */
export interface NativeApprovalUi {
  /**
   * Shows a notification; `onClick` runs when the person clicks it. Returns false where the
   * system shows none (the router then opens the dialog at once).
   */
  notify(notice: ApprovalNotice, onClick: () => void): boolean;
  /** Shows the dialog; resolves with the index of the button pressed. Closes when `signal` aborts. */
  ask(dialog: ApprovalDialogModel, signal: AbortSignal): Promise<number>;
}

export interface ApprovalRouterDeps {
  broker: ApprovalSource;
  ui: NativeApprovalUi;
  /** True while the window is on screen (see windowAttended): the UI shows approvals itself. */
  attended: () => boolean;
  /** Who the broker records as answering. */
  by?: string;
  onError?: (error: unknown) => void;
}

export class ApprovalRouter {
  private readonly queue: RoutedApproval[] = [];
  /** Approvals already handed to the native surface (queued, shown or answered). */
  private readonly routed = new Set<string>();
  private readonly open = new Map<string, AbortController>();
  private showing = false;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly deps: ApprovalRouterDeps) {}

  start(): void {
    if (this.unsubscribe) return;
    const offRequest = this.deps.broker.onRequest((pending) => {
      if (!this.deps.attended()) this.route(pending);
    });
    const offResolved = this.deps.broker.onResolved((id) => this.settled(id));
    this.unsubscribe = () => {
      offRequest();
      offResolved();
    };
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.queue.length = 0;
    for (const controller of this.open.values()) controller.abort();
  }

  /** The window was hidden or minimized: approvals the UI was showing go native too. */
  windowLeft(): void {
    for (const pending of this.deps.broker.pending()) this.route(pending);
  }

  /** Ids whose dialog is open now (for tests and diagnostics). */
  openDialogs(): string[] {
    return [...this.open.keys()];
  }

  private route(pending: RoutedApproval): void {
    if (this.routed.has(pending.id)) return;
    this.routed.add(pending.id);
    const shown = this.deps.ui.notify(approvalNotice(pending), () => this.enqueue(pending));
    if (!shown) this.enqueue(pending);
  }

  /** Queues the dialog once, and only while the approval still waits (a late click is a no-op). */
  private enqueue(pending: RoutedApproval): void {
    if (!this.stillPending(pending.id) || this.open.has(pending.id)) return;
    if (this.queue.some((queued) => queued.id === pending.id)) return;
    this.queue.push(pending);
    void this.showNext();
  }

  /** One dialog at a time: stacked modal boxes would hide which call each one is about. */
  private async showNext(): Promise<void> {
    if (this.showing) return;
    this.showing = true;
    try {
      for (let next = this.queue.shift(); next; next = this.queue.shift()) {
        if (this.stillPending(next.id)) await this.ask(next);
      }
    } finally {
      this.showing = false;
    }
  }

  private async ask(pending: RoutedApproval): Promise<void> {
    const dialog = approvalDialog(pending);
    const controller = new AbortController();
    this.open.set(pending.id, controller);
    try {
      const index = await this.deps.ui.ask(dialog, controller.signal);
      if (controller.signal.aborted) return;
      const verdict: ApprovalVerdict = dialog.verdicts[index] ?? 'deny';
      // 'already_resolved' here means another surface or the timeout won: nothing to do.
      this.deps.broker.resolve(pending.id, verdict, this.deps.by ?? 'dialog');
    } catch (error) {
      this.deps.onError?.(error);
    } finally {
      this.open.delete(pending.id);
    }
  }

  private settled(id: string): void {
    this.open.get(id)?.abort();
    const queued = this.queue.findIndex((pending) => pending.id === id);
    if (queued >= 0) this.queue.splice(queued, 1);
  }

  private stillPending(id: string): boolean {
    return this.deps.broker.pending().some((pending) => pending.id === id);
  }
}

/** What `attended` asks of a window. */
export interface AttendableWindow {
  isDestroyed(): boolean;
  isVisible(): boolean;
  isMinimized(): boolean;
}

/** Whether the approval card can be seen: the window is shown and not minimized (focus aside). */
export function windowAttended(window: AttendableWindow | null): boolean {
  return Boolean(window && !window.isDestroyed() && window.isVisible() && !window.isMinimized());
}
