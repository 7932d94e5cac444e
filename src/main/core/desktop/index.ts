/** The desktop module's public surface: what other modules import. */
export { AgentActivity } from './activity.js';
export { appMenuTemplate } from './app-menu.js';
export type { ApprovalNotice, RoutedApproval } from './approval-dialog.js';
export { ApprovalRouter, type NativeApprovalUi, windowAttended } from './approval-router.js';
export {
  admittingAssistant,
  type ShellCoreParts,
  shellCoreFromAssistant,
} from './assistant-core.js';
export { startBackgroundChannels } from './background.js';
export { CLOSE_TO_TRAY_NOTICE, CloseToTray } from './close-to-tray.js';
export { autostartFile, loginItemSettings, setLinuxAutostart } from './login-item.js';
export { DesktopPreferences } from './preferences.js';
export { QuitCoordinator } from './quit.js';
export {
  APP_ENTRY_URL,
  APP_SCHEME,
  APP_SCHEME_PRIVILEGES,
  isAppUrl,
  mimeTypeOf,
  resolveRendererPath,
  serveRendererRequest,
} from './renderer-files.js';
export { RunEventTracker } from './run-events.js';
export { DesktopSettingsStore, desktopSettingsPath } from './settings.js';
export { TrayController, type TrayView } from './tray-controller.js';
export { planUpdates } from './updates.js';
export {
  decidePermission,
  externalLinkPrompt,
  guardWebContents,
  HARDENED_WEB_PREFERENCES,
  openExternalSafely,
} from './web-guard.js';
export {
  boundsToSave,
  type InitialBounds,
  initialBounds,
  MAIN_WINDOW_SIZING,
  type WindowBounds,
} from './window-bounds.js';
export { claimSingleInstance, startsHidden, summonWindow } from './window-control.js';
