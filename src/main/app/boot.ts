/**
 * Starts the desktop app around one assistant: single-instance lock, security policies, the
 * assistant (with the safeStorage-backed secrets), the IPC contract, then the shell (tray,
 * window, approvals, quit). Beside a running `pincer daemon` on the same data directory, the app
 * attaches to its agent instead of opening a second one. main.ts calls it with the local model;
 * the Electron E2E suite with a scripted one.
 */
import { app, type BrowserWindow, shell as electronShell } from 'electron';
import { EVENT_CHANNEL } from '../../shared/ipc.js';
import { type ModelChoice, openAgent } from '../core/agent/index.js';
import { assistantOver } from '../core/assistant/index.js';
import {
  AgentActivity,
  admittingAssistant,
  claimSingleInstance,
  shellCoreFromAssistant,
  startBackgroundChannels,
} from '../core/desktop/index.js';
import {
  type AttachedDesktop,
  attachToRunningAgent,
  bindTrayPause,
  serveAttachPoint,
} from '../core/gateway/index.js';
import { createCoreHandlers, dispatch } from '../core/ipc/index.js';
import { resolveDataDir } from '../core/paths.js';
import { createSecretStore } from '../core/secrets/index.js';
import { registerIpc } from './ipc.js';
import { openLinkWithConfirmation } from './native-ui.js';
import { builtRendererDir, registerRendererScheme, serveBuiltRenderer } from './renderer-origin.js';
import { safeStorageEncryptor } from './safe-storage.js';
import { installSecurityPolicies } from './security.js';
import { type DesktopShell, startDesktopShell } from './shell.js';

export interface BootOptions {
  model: ModelChoice;
  /** Where models/catalog.json and resources/ are; the app itself by default. */
  appDir?: string;
}

export function bootDesktop(options: BootOptions): void {
  // One data directory for the shell and the CLI (PINCER_HOME honoured by both).
  const dataDir = resolveDataDir();
  app.setPath('userData', dataDir);
  let shell: DesktopShell | null = null;

  // A second launch quits here and summons the first one's window.
  if (!claimSingleInstance(app, () => shell?.summon())) return;
  registerRendererScheme();

  const start = async () => {
    serveBuiltRenderer();
    installSecurityPolicies({
      openExternal: (url) => openLinkWithConfirmation(url, () => shell?.window() ?? null),
    });
    const attached = await attachToRunningAgent(dataDir, {
      electronVersion: process.versions.electron,
      reveal: revealInFileManager,
      desktop: () => shell?.preferences,
    });
    if (attached) {
      shell = await startAttached(dataDir, attached);
      return;
    }
    const agent = await openAgent({
      dataDir,
      appDir: options.appDir ?? app.getAppPath(),
      model: options.model,
      // The app keeps a few conversations' KV caches warm.
      local: { maxConversations: 4 },
      // The window shows an MCP server's form mid-call (elicitation).
      askForInput: true,
      // Long-lived: a tool call finds its sandboxed worker already started.
      warmTools: true,
      // Keychain first; without one, a vault encrypted by the OS through safeStorage.
      secrets: createSecretStore({ dataDir, encryptor: safeStorageEncryptor() }),
    });
    const assistant = await assistantOver(agent);
    const activity = new AgentActivity();
    // Channels and schedules run on the same agent, held while the tray pauses.
    const background = await startBackgroundChannels(agent, activity, (line) =>
      console.info(`[pincer] ${line}`),
    );
    // The window's status bar and Settings → Channels read the channels served here.
    const disconnectChannels = background.live
      ? assistant.channels.connect(background.live)
      : undefined;
    const admitting = admittingAssistant(assistant, activity);
    const handlers = createCoreHandlers({
      assistant: admitting,
      electronVersion: process.versions.electron,
      reveal: revealInFileManager,
      desktop: () => shell?.preferences,
    });
    registerIpc((channel, request) => dispatch(handlers, channel, request));
    // `pincer tui` on this data directory attaches here (gateway.json) instead of being refused;
    // beside a daemon (it holds the lock and names its own gateway) the app serves none.
    const attach = background.channels
      ? await serveAttachPoint({
          assistant: admitting,
          dataDir,
          rendererDir: builtRendererDir,
          onError: (error) => console.warn(`[pincer] attach gateway: ${error.message}`),
        }).catch((error: unknown) => {
          console.warn(`[pincer] attach gateway not served: ${String(error)}`);
          return undefined;
        })
      : undefined;
    let window: BrowserWindow | null = null;
    assistant.subscribe((event) => {
      if (window && !window.isDestroyed()) window.webContents.send(EVENT_CHANNEL, event);
    });
    shell = await startDesktopShell({
      dataDir,
      core: {
        ...shellCoreFromAssistant(assistant),
        close: async () => {
          await attach?.close();
          disconnectChannels?.();
          await background.stop();
          await assistant.close();
        },
      },
      activity,
      held: background.live,
      onWindowCreated: (created) => {
        window = created;
      },
    });
  };
  app
    .whenReady()
    .then(start)
    .catch((error: unknown) => {
      console.error(
        `[pincer] could not start: ${error instanceof Error ? error.stack : String(error)}`,
      );
      app.exit(1);
    });
}

/**
 * The shell over the agent of a running daemon: the window's calls and events go through its
 * gateway, the tray pauses its channels, and when it goes away the app starts again on its own
 * agent (or attaches to the daemon that replaced it).
 */
async function startAttached(dataDir: string, attached: AttachedDesktop): Promise<DesktopShell> {
  console.info(`[pincer] attached to the agent of pid ${attached.pid} at ${attached.where}`);
  registerIpc((channel, request) => attached.route(channel, request));
  const activity = new AgentActivity();
  const unbindPause = bindTrayPause(activity, attached, (error) =>
    console.warn(`[pincer] pause: ${error instanceof Error ? error.message : String(error)}`),
  );
  let window: BrowserWindow | null = null;
  attached.subscribe((event) => {
    if (window && !window.isDestroyed()) window.webContents.send(EVENT_CHANNEL, event);
  });
  attached.onLost(() => {
    console.warn('[pincer] the agent attached to went away: starting again');
    app.relaunch();
    app.exit(0);
  });
  return startDesktopShell({
    dataDir,
    core: {
      ...attached.shell,
      close: async () => {
        unbindPause();
        await attached.close();
      },
    },
    activity,
    held: attached.held,
    onWindowCreated: (created) => {
      window = created;
    },
  });
}

/**
 * A folder opens in the file manager; a file is only selected there, never opened: files the
 * agent wrote are hostile, and opening one could run it.
 */
async function revealInFileManager(target: { path: string; isFolder: boolean }): Promise<void> {
  if (!target.isFolder) return electronShell.showItemInFolder(target.path);
  const problem = await electronShell.openPath(target.path);
  if (problem) throw new Error(problem);
}
