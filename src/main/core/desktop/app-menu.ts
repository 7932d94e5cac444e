/**
 * The application menu as data (the Electron glue builds it): Quit is reachable from the window
 * on every platform, and Reload and the developer tools exist only in development builds, where
 * a reload cannot lose a packaged user's unsent work and DevTools cannot be opened on a
 * production renderer by a stray key.
 */

/** Electron menu roles used here (a subset of Electron's, so the template is passed as is). */
export type MenuRole =
  | 'about'
  | 'services'
  | 'hide'
  | 'hideOthers'
  | 'unhide'
  | 'quit'
  | 'undo'
  | 'redo'
  | 'cut'
  | 'copy'
  | 'paste'
  | 'selectAll'
  | 'reload'
  | 'forceReload'
  | 'toggleDevTools'
  | 'resetZoom'
  | 'zoomIn'
  | 'zoomOut'
  | 'togglefullscreen'
  | 'minimize'
  | 'zoom'
  | 'close'
  | 'front';

export interface MenuEntry {
  label?: string;
  role?: MenuRole;
  type?: 'separator';
  submenu?: MenuEntry[];
}

export interface AppMenuOptions {
  platform: NodeJS.Platform;
  /** A packaged (production) build: no Reload, no developer tools. */
  packaged: boolean;
  appName?: string;
}

const separator: MenuEntry = { type: 'separator' };

export function appMenuTemplate(options: AppMenuOptions): MenuEntry[] {
  const name = options.appName ?? 'Pincer';
  const mac = options.platform === 'darwin';
  const quit: MenuEntry = { role: 'quit', label: `Quit ${name}` };
  const menu: MenuEntry[] = [];
  if (mac) {
    menu.push({
      label: name,
      submenu: [
        { role: 'about' },
        separator,
        { role: 'services' },
        separator,
        { role: 'hide' },
        { role: 'hideOthers' },
        { role: 'unhide' },
        separator,
        quit,
      ],
    });
  } else {
    // Closing the window only hides it to the tray: Quit needs a place in the window itself.
    menu.push({ label: 'File', submenu: [{ role: 'close', label: 'Close Window' }, quit] });
  }
  menu.push({
    label: 'Edit',
    submenu: [
      { role: 'undo' },
      { role: 'redo' },
      separator,
      { role: 'cut' },
      { role: 'copy' },
      { role: 'paste' },
      { role: 'selectAll' },
    ],
  });
  const view: MenuEntry[] = options.packaged
    ? []
    : [{ role: 'reload' }, { role: 'forceReload' }, { role: 'toggleDevTools' }, separator];
  view.push({ role: 'resetZoom' }, { role: 'zoomIn' }, { role: 'zoomOut' }, separator, {
    role: 'togglefullscreen',
  });
  menu.push({ label: 'View', submenu: view });
  menu.push({
    label: 'Window',
    submenu: mac
      ? [{ role: 'minimize' }, { role: 'zoom' }, separator, { role: 'front' }]
      : [{ role: 'minimize' }, { role: 'close' }],
  });
  return menu;
}

/** Every role in a template, depth first (what tests and diagnostics look at). */
export function menuRoles(template: readonly MenuEntry[]): MenuRole[] {
  return template.flatMap((entry) => [
    ...(entry.role ? [entry.role] : []),
    ...menuRoles(entry.submenu ?? []),
  ]);
}
