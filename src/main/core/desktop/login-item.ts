/**
 * Start at login (off by default), hidden in the tray. macOS and Windows have an OS API that
 * Electron wraps (app.setLoginItemSettings); Linux has none, so an XDG autostart entry
 * (~/.config/autostart/pincer.desktop) is written or removed instead.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { START_HIDDEN_FLAG } from './window-control.js';

export interface LoginItemSettings {
  openAtLogin: boolean;
  args: string[];
}

/** What to pass to app.setLoginItemSettings on macOS/Windows. */
export function loginItemSettings(enabled: boolean): LoginItemSettings {
  return { openAtLogin: enabled, args: enabled ? [START_HIDDEN_FLAG] : [] };
}

export function autostartFile(env: Record<string, string | undefined>, homedir: string): string {
  const config = env.XDG_CONFIG_HOME?.trim() || path.join(homedir, '.config');
  return path.join(config, 'autostart', 'pincer.desktop');
}

/**
 * The autostart entry. `executable` is the AppImage when run from one ($APPIMAGE: the mounted
 * path changes each launch) or the installed binary.
 */
export function autostartEntry(executable: string): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=Pincer',
    'Comment=Local-first AI assistant (starts in the tray)',
    `Exec=${desktopExecQuote(executable)} ${START_HIDDEN_FLAG}`,
    'Icon=pincer',
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

export async function setLinuxAutostart(
  enabled: boolean,
  options: { file: string; executable: string },
): Promise<void> {
  if (!enabled) {
    await fs.rm(options.file, { force: true });
    return;
  }
  await fs.mkdir(path.dirname(options.file), { recursive: true });
  await fs.writeFile(options.file, autostartEntry(options.executable), { mode: 0o644 });
}

export async function linuxAutostartEnabled(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

/** Quoting per the Desktop Entry spec's Exec key: a path with spaces or quotes stays one arg. */
function desktopExecQuote(arg: string): string {
  if (!/[\s"'\\$`]/.test(arg)) return arg;
  return `"${arg.replace(/(["`$\\])/g, '\\$1')}"`;
}
