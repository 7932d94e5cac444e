/**
 * The desktop shell around one core: tray, window, close-to-tray, native approvals, global
 * shortcut, start at login, graceful quit and updates. Glue only: each decision is made by a
 * tested module in src/main/core/desktop; this file hands them Electron's objects.
 */
import { app, type BrowserWindow, globalShortcut, screen } from 'electron';
import type { ShellCoreParts } from '../core/desktop/index.js';
import {
  AgentActivity,
  ApprovalRouter,
  CLOSE_TO_TRAY_NOTICE,
  CloseToTray,
  DesktopPreferences,
  DesktopSettingsStore,
  desktopSettingsPath,
  initialBounds,
  MAIN_WINDOW_SIZING,
  QuitCoordinator,
  RunEventTracker,
  startsHidden,
  summonWindow,
  TrayController,
  windowAttended,
} from '../core/desktop/index.js';
import { applyStartAtLogin, openedAtLogin } from './login-item.js';
import { installAppMenu } from './menu.js';
import { nativeApprovalUi, notify } from './native-ui.js';
import { createTrayView } from './tray.js';
import { startAutoUpdate } from './updater.js';
import { createMainWindow } from './window.js';

/** What the shell needs from the core: shellCoreFromAssistant(assistant) provides it. */
export type ShellCore = ShellCoreParts;

export interface DesktopShell {
  window(): BrowserWindow | null;
  summon(): void;
  activity: AgentActivity;
  settings: DesktopSettingsStore;
  /** Settings → Desktop reads and changes these. */
  preferences: DesktopPreferences;
}

const log = (message: string) => console.log(`[pincer] ${message}`);
const warn = (error: unknown) =>
  console.warn(`[pincer] ${error instanceof Error ? error.message : String(error)}`);

/** Call after app 'ready', once the single-instance lock is held. */
export async function startDesktopShell(options: {
  dataDir: string;
  core: ShellCore;
  /** Called with each new main window (the event forwarder targets it). */
  onWindowCreated?: (window: BrowserWindow) => void;
  /** How long runs may finish on quit before they are cancelled. */
  drainTimeoutMs?: number;
  /** Shared with whatever admits new runs (the IPC handlers); a new one otherwise. */
  activity?: AgentActivity;
  /** The channels served here: the tray counts the work their pause holds. */
  held?: { held(): unknown[]; onChange(listener: () => void): () => void };
}): Promise<DesktopShell> {
  const { core } = options;
  const settings = new DesktopSettingsStore(desktopSettingsPath(options.dataDir));
  await settings.load();
  if (settings.problem) warn(settings.problem);

  const activity = options.activity ?? new AgentActivity();
  const tracker = new RunEventTracker(activity, (runId) => core.cancelRun(runId));
  core.onRunEvent((event) => tracker.onEvent(event));

  let router: ApprovalRouter | null = null;
  let stopTray: (() => void) | null = null;
  const quit = new QuitCoordinator({
    activity,
    drainTimeoutMs: options.drainTimeoutMs,
    quit: () => app.quit(),
    cleanup: async () => {
      preferences.stop();
      globalShortcut.unregisterAll();
      router?.stop();
      stopTray?.();
      await core.close();
    },
    onReport: (report) =>
      log(
        report.drained
          ? `quit: ${report.finished} run(s) finished`
          : `quit: ${report.cancelled} run(s) cancelled at the deadline (resumable)`,
      ),
    onError: warn,
  });
  app.on('before-quit', (event) => {
    if (quit.beforeQuit() === 'hold') event.preventDefault();
  });

  installAppMenu();

  // Made before the window so a close can ask whether it exists; null where none can be made.
  let trayView: ReturnType<typeof createTrayView> | null = null;
  try {
    trayView = createTrayView();
  } catch (error) {
    warn(error);
    log('no tray icon: closing the window quits Pincer');
  }

  const closeToTray = new CloseToTray({
    quitting: () => quit.quitting,
    trayAvailable: () => trayView !== null,
    enabled: () => settings.get().closeToTray,
    noticeShown: () => settings.get().closeToTrayNoticeShown,
    rememberNotice: async () => {
      await settings.update({ closeToTrayNoticeShown: true });
    },
    onError: warn,
  });

  const slot: { current: BrowserWindow | null; create: () => BrowserWindow } = {
    current: null,
    create: () => {
      const window = createMainWindow(
        {
          onClose: () => {
            const decision = closeToTray.onClose();
            if (decision.action === 'hide' && decision.notice) notify(CLOSE_TO_TRAY_NOTICE);
            if (decision.action !== 'quit') return decision.action;
            app.quit();
            return 'close';
          },
          onLeave: () => router?.windowLeft(),
          onBounds: (bounds) => {
            settings.update({ window: bounds }).catch(warn);
          },
        },
        {
          show: true,
          bounds: initialBounds(
            settings.get().window,
            // Primary first: an off-screen window is sized to fit it.
            [screen.getPrimaryDisplay(), ...screen.getAllDisplays()].map((d) => d.workArea),
            MAIN_WINDOW_SIZING,
          ),
        },
      );
      options.onWindowCreated?.(window);
      return window;
    },
  };
  const summon = () => {
    summonWindow(slot);
  };
  const currentWindow = () => (slot.current && !slot.current.isDestroyed() ? slot.current : null);
  const preferences = new DesktopPreferences({
    settings,
    shortcuts: globalShortcut,
    summon,
    applyStartAtLogin,
    onChange: () => tray?.refresh(),
  });

  router = new ApprovalRouter({
    broker: core.approvals,
    ui: nativeApprovalUi({ window: currentWindow }),
    attended: () => windowAttended(currentWindow()),
    onError: warn,
  });
  router.start();

  const tray = trayView
    ? new TrayController({
        view: trayView,
        activity,
        approvals: core.approvals,
        commands: {
          open: summon,
          newChat: () => {
            core.newChat();
            summon();
          },
          showApprovals: summon,
          toggleStartAtLogin: async () => {
            await preferences.update({ startAtLogin: !settings.get().startAtLogin });
          },
          quit: () => app.quit(),
        },
        startAtLogin: () => settings.get().startAtLogin,
        held: options.held,
        onError: warn,
      })
    : null;
  tray?.start();
  stopTray = () => {
    tray?.stop();
    trayView?.destroy();
  };

  preferences.start();
  const { shortcutProblem } = preferences.view();
  if (shortcutProblem) log(`global shortcut not registered: ${shortcutProblem}`);
  await applyStartAtLogin(settings.get().startAtLogin).catch(warn);
  log(startAutoUpdate(settings.get().updateFeedUrl));

  // Started at login (or with --hidden): stay in the tray until summoned.
  // Without a tray a hidden start could never be summoned but by the shortcut: show it.
  if (!trayView || !startsHidden(process.argv, openedAtLogin())) summon();
  // macOS: clicking the dock icon with no window open.
  app.on('activate', summon);
  // The tray keeps Pincer alive with no window; only Quit ends it. Without a tray, the last
  // window closing quits.
  app.on('window-all-closed', () => {
    if (!trayView) app.quit();
  });

  return { window: currentWindow, summon, activity, settings, preferences };
}
