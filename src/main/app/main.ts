/**
 * The Electron shell's entry: thin glue between Electron and the core. Everything with logic
 * lives in src/main/core (the assistant, and the shell's decisions in core/desktop) and is
 * tested there; this file only wires it to Electron's APIs.
 */
import { app, type BrowserWindow } from 'electron';
import { EVENT_CHANNEL } from '../../shared/ipc.js';
import { createAssistant } from '../core/assistant/index.js';
import { shellCoreFromAssistant } from '../core/desktop/assistant-core.js';
import { claimSingleInstance } from '../core/desktop/window-control.js';
import { createCoreHandlers } from '../core/ipc/handlers.js';
import { resolveDataDir } from '../core/paths.js';
import { createSecretStore } from '../core/secrets/index.js';
import { registerIpc } from './ipc.js';
import { openLinkWithConfirmation } from './native-ui.js';
import { safeStorageEncryptor } from './safe-storage.js';
import { installSecurityPolicies } from './security.js';
import { type DesktopShell, startDesktopShell } from './shell.js';

// One data directory for the shell and the CLI (PINCER_HOME honoured by both).
const dataDir = resolveDataDir();
app.setPath('userData', dataDir);

let shell: DesktopShell | null = null;

// A second launch quits here and summons the first one's window.
if (claimSingleInstance(app, () => shell?.summon())) {
  app.whenReady().then(start, (error: unknown) => fail(error));
}

async function start(): Promise<void> {
  try {
    installSecurityPolicies({
      openExternal: (url) => openLinkWithConfirmation(url, () => shell?.window() ?? null),
    });
    const assistant = await createAssistant({
      dataDir,
      appDir: app.getAppPath(),
      model: { kind: 'local' },
      // Keychain first; without one, a vault encrypted by the OS through safeStorage.
      secrets: createSecretStore({ dataDir, encryptor: safeStorageEncryptor() }),
    });
    registerIpc(createCoreHandlers({ assistant, electronVersion: process.versions.electron }));
    let window: BrowserWindow | null = null;
    assistant.subscribe((event) => {
      if (window && !window.isDestroyed()) window.webContents.send(EVENT_CHANNEL, event);
    });
    shell = await startDesktopShell({
      dataDir,
      core: shellCoreFromAssistant(assistant),
      onWindowCreated: (created) => {
        window = created;
      },
    });
  } catch (error) {
    fail(error);
  }
}

function fail(error: unknown): void {
  console.error(
    `[pincer] could not start: ${error instanceof Error ? error.stack : String(error)}`,
  );
  app.exit(1);
}
