import { app, Menu } from 'electron';
import { appMenuTemplate } from '../core/desktop/index.js';

/** The application menu; its content (no Reload/DevTools when packaged) is app-menu.ts's. */
export function installAppMenu(): void {
  const template = appMenuTemplate({ platform: process.platform, packaged: app.isPackaged });
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}
