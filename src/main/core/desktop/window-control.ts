/**
 * Bringing the window back: from the tray, the global shortcut, a second launch or a
 * notification. One function so every path restores, shows and focuses the same way.
 */

/** The part of Electron's BrowserWindow this needs. */
export interface SummonableWindow {
  isDestroyed(): boolean;
  isMinimized(): boolean;
  restore(): void;
  show(): void;
  focus(): void;
}

export interface WindowSlot<W extends SummonableWindow> {
  current: W | null;
  create: () => W;
}

/** Shows the window, creating it if it was never made or was destroyed. Returns it. */
export function summonWindow<W extends SummonableWindow>(slot: WindowSlot<W>): W {
  const existing = slot.current;
  if (!existing || existing.isDestroyed()) {
    slot.current = slot.create();
    return slot.current;
  }
  if (existing.isMinimized()) existing.restore();
  existing.show();
  existing.focus();
  return existing;
}

/** Launched at login, or with --hidden: start in the tray without opening the window. */
export const START_HIDDEN_FLAG = '--hidden';

export function startsHidden(argv: readonly string[], wasOpenedAsHidden = false): boolean {
  return wasOpenedAsHidden || argv.includes(START_HIDDEN_FLAG);
}

/** The part of Electron's `app` the single-instance lock needs. */
export interface SingleInstanceApp {
  requestSingleInstanceLock(): boolean;
  quit(): void;
  on(event: 'second-instance', listener: () => void): unknown;
}

/**
 * Takes the single-instance lock. The first Pincer keeps running and is summoned when another
 * is launched; a second one quits at once (returns false: the caller must not start anything).
 */
export function claimSingleInstance(app: SingleInstanceApp, summon: () => void): boolean {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return false;
  }
  app.on('second-instance', summon);
  return true;
}
