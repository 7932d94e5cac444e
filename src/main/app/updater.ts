import { app } from 'electron';
import electronUpdater from 'electron-updater';
import { planUpdates } from '../core/desktop/index.js';

/**
 * electron-updater, off unless a feed is configured (settings or PINCER_UPDATE_FEED) in a
 * packaged build. Downloads in the background and installs on the next quit.
 */
export function startAutoUpdate(settingsFeed: string | null): string {
  const plan = planUpdates({ isPackaged: app.isPackaged, settingsFeed, env: process.env });
  if (!plan.enabled) return `auto-update off: ${plan.reason}`;
  // CommonJS package: its named export is reached through the default import under ESM.
  const { autoUpdater } = electronUpdater;
  autoUpdater.setFeedURL(plan.feed);
  autoUpdater.autoInstallOnAppQuit = true;
  autoUpdater.on('error', (error) =>
    console.warn(`[pincer] update check failed: ${error.message}`),
  );
  void autoUpdater.checkForUpdatesAndNotify().catch(() => {});
  return `auto-update on: ${plan.feed.url}`;
}
