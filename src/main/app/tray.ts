import { Menu, type MenuItemConstructorOptions, nativeImage, Tray } from 'electron';
import type { TrayView } from '../core/desktop/index.js';
import { appResource } from './app-paths.js';

/** The Electron Tray as the controller's view; all decisions are in TrayController. */
export function createTrayView(): TrayView & { destroy(): void } {
  const image = (name: string) => {
    const icon = nativeImage.createFromPath(appResource('tray', name));
    // macOS draws template images in the menu bar's colour (light or dark).
    if (process.platform === 'darwin') icon.setTemplateImage(true);
    return icon;
  };
  const tray = new Tray(image('tray-idle.png'));
  return {
    setImage: (name) => tray.setImage(image(name)),
    setToolTip: (text) => tray.setToolTip(text),
    setMenu: (items, onAction) => {
      const template = items.map((item): MenuItemConstructorOptions => {
        if (item.kind === 'separator') return { type: 'separator' };
        if (item.kind === 'checkbox') {
          const { label, checked, action } = item;
          return { type: 'checkbox', label, checked, click: () => onAction(action) };
        }
        return { label: item.label, enabled: item.enabled, click: () => onAction(item.action) };
      });
      tray.setContextMenu(Menu.buildFromTemplate(template));
    },
    destroy: () => tray.destroy(),
  };
}
