/**
 * The desktop preferences a person changes in Settings → Desktop (and the tray's start-at-login
 * checkbox): start at login, keep running in the tray when the window closes, and the global
 * shortcut. A change takes effect before it is saved: a shortcut another application owns is
 * refused with the reason and the previous one stays registered, so a failed change loses
 * nothing.
 */
import { PincerError } from '../errors.js';
import type { DesktopSettingsStore } from './settings.js';
import { checkAccelerator, registerSummonShortcut, type ShortcutRegistry } from './shortcut.js';

export interface DesktopPreferencesView {
  startAtLogin: boolean;
  closeToTray: boolean;
  /** The accelerator (Electron's spelling); null: no shortcut. */
  globalShortcut: string | null;
  /** Why the shortcut is not active (taken, turned off); null while it works. */
  shortcutProblem: string | null;
}

export type DesktopPreferencesPatch = Partial<
  Pick<DesktopPreferencesView, 'startAtLogin' | 'closeToTray' | 'globalShortcut'>
>;

export class DesktopPreferenceError extends PincerError {
  readonly code = 'invalid_request';
  constructor(message: string) {
    super('invalid_request', message);
    this.name = 'DesktopPreferenceError';
  }
}

export interface DesktopPreferencesDeps {
  settings: DesktopSettingsStore;
  shortcuts: ShortcutRegistry;
  /** What the shortcut does: bring the window back. */
  summon: () => void;
  /** Registers or removes the login item (the OS's part of start at login). */
  applyStartAtLogin: (enabled: boolean) => Promise<void>;
  /** Told after every change (the tray's checkbox follows). */
  onChange?: () => void;
}

export class DesktopPreferences {
  private shortcutProblem: string | null = null;
  private active: string | null = null;

  constructor(private readonly deps: DesktopPreferencesDeps) {}

  /** At launch: registers the saved shortcut (a taken one is reported, not fatal). */
  start(): void {
    this.register(this.deps.settings.get().globalShortcut);
  }

  view(): DesktopPreferencesView {
    const saved = this.deps.settings.get();
    return {
      startAtLogin: saved.startAtLogin,
      closeToTray: saved.closeToTray,
      globalShortcut: saved.globalShortcut,
      shortcutProblem: this.shortcutProblem,
    };
  }

  async update(patch: DesktopPreferencesPatch): Promise<DesktopPreferencesView> {
    const before = this.deps.settings.get();
    if (patch.globalShortcut !== undefined && patch.globalShortcut !== before.globalShortcut) {
      this.changeShortcut(patch.globalShortcut, before.globalShortcut);
    }
    if (patch.startAtLogin !== undefined && patch.startAtLogin !== before.startAtLogin) {
      await this.deps.applyStartAtLogin(patch.startAtLogin);
    }
    await this.deps.settings.update(patch);
    this.deps.onChange?.();
    return this.view();
  }

  stop(): void {
    if (this.active !== null) this.deps.shortcuts.unregister(this.active);
    this.active = null;
  }

  private changeShortcut(next: string | null, previous: string | null): void {
    const malformed = next === null ? null : checkAccelerator(next);
    if (malformed) throw new DesktopPreferenceError(malformed);
    this.stop();
    const result = this.register(next);
    if (next !== null && !result) {
      const reason = this.shortcutProblem;
      this.register(previous);
      throw new DesktopPreferenceError(reason ?? `${next} could not be registered`);
    }
  }

  /** True when `accelerator` is now the active shortcut (or null was asked for). */
  private register(accelerator: string | null): boolean {
    const result = registerSummonShortcut(this.deps.shortcuts, accelerator, this.deps.summon);
    this.active = result.registered ? result.accelerator : null;
    this.shortcutProblem = result.registered ? null : result.reason;
    return result.registered || accelerator === null;
  }
}
