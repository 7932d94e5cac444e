/**
 * The Electron shell's entry: thin glue between Electron and the core. Everything with logic
 * lives in src/main/core and is tested there; this file only wires it to Electron's APIs.
 */
import { app, type BrowserWindow } from 'electron';
import { EVENT_CHANNEL } from '../../shared/ipc.js';
import { createAssistant } from '../core/assistant/index.js';
import { createCoreHandlers } from '../core/ipc/handlers.js';
import { resolveDataDir } from '../core/paths.js';
import { registerIpc } from './ipc.js';
import { installSecurityPolicies } from './security.js';
import { createMainWindow } from './window.js';

// One data directory for the shell and the CLI (PINCER_HOME honoured by both).
const dataDir = resolveDataDir();
app.setPath('userData', dataDir);

let mainWindow: BrowserWindow | null = null;

function showMainWindow(): void {
  if (!mainWindow || mainWindow.isDestroyed()) {
    mainWindow = createMainWindow();
    return;
  }
  if (mainWindow.isMinimized()) mainWindow.restore();
  mainWindow.show();
  mainWindow.focus();
}

if (!app.requestSingleInstanceLock()) {
  // Another Pincer is running; it receives 'second-instance' and shows itself.
  app.quit();
} else {
  app.on('second-instance', showMainWindow);
  app.whenReady().then(async () => {
    installSecurityPolicies();
    const assistant = await createAssistant({
      dataDir,
      appDir: app.getAppPath(),
      model: { kind: 'local' },
    });
    registerIpc(createCoreHandlers({ assistant, electronVersion: process.versions.electron }));
    assistant.subscribe((event) => mainWindow?.webContents.send(EVENT_CHANNEL, event));
    showMainWindow();
    app.on('activate', showMainWindow);
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
}
