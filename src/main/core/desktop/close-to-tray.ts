/**
 * Closing the window keeps Pincer running in the tray; the first time, a notification says so
 * (remembered in the desktop settings, so it is shown once per user, not once per launch).
 * While the app is quitting, a close is a real close. Where no tray could be made (a Linux
 * desktop without a status area, a tray that failed to start), a hidden window could never be
 * brought back, so closing it quits instead.
 */
export type CloseDecision =
  | { action: 'close' }
  | { action: 'hide'; notice: boolean }
  | { action: 'quit' };

export interface CloseToTrayDeps {
  quitting: () => boolean;
  /** Whether a tray icon exists to bring the window back from. */
  trayAvailable: () => boolean;
  /** The user's choice (Settings → Desktop); off: closing the window quits. On by default. */
  enabled?: () => boolean;
  noticeShown: () => boolean;
  /** Persists that the notice was shown. */
  rememberNotice: () => Promise<void>;
  onError?: (error: unknown) => void;
}

export const CLOSE_TO_TRAY_NOTICE = {
  title: 'Pincer is still running',
  body: 'It keeps working in the tray and will ask there when a tool needs approval. Quit from the tray menu.',
} as const;

export class CloseToTray {
  /** Set at once so two quick closes before the save finishes notify once. */
  private noticedThisRun = false;

  constructor(private readonly deps: CloseToTrayDeps) {}

  /**
   * For the window's 'close' event: 'hide' means preventDefault() and hide the window; 'quit'
   * lets it close and quits the app (the quit drain still lets runs finish).
   */
  onClose(): CloseDecision {
    if (this.deps.quitting()) return { action: 'close' };
    if (!this.deps.trayAvailable() || this.deps.enabled?.() === false) return { action: 'quit' };
    const notice = !this.noticedThisRun && !this.deps.noticeShown();
    if (notice) {
      this.noticedThisRun = true;
      this.deps.rememberNotice().catch((error: unknown) => this.deps.onError?.(error));
    }
    return { action: 'hide', notice };
  }
}
