import os from 'node:os';
import { app } from 'electron';
import { autostartFile, loginItemSettings, setLinuxAutostart } from '../core/desktop/index.js';

/** Start at login: the OS login item on macOS/Windows, an XDG autostart entry on Linux. */
export async function applyStartAtLogin(enabled: boolean): Promise<void> {
  if (process.platform === 'darwin' || process.platform === 'win32') {
    app.setLoginItemSettings(loginItemSettings(enabled));
    return;
  }
  // Inside an AppImage, process.execPath is a temporary mount; $APPIMAGE is the real file.
  const executable = process.env.APPIMAGE || process.execPath;
  await setLinuxAutostart(enabled, { file: autostartFile(process.env, os.homedir()), executable });
}

/** macOS reports a launch by the login item (it passes no arguments); elsewhere --hidden says so. */
export function openedAtLogin(): boolean {
  return process.platform === 'darwin' && app.getLoginItemSettings().wasOpenedAtLogin;
}
