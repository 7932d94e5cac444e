/**
 * The desktop app beside a running agent on its data directory (`pincer daemon`, or `pincer
 * gateway`): instead of opening a second agent on the same store, the app attaches to the one
 * running, through the attach gateway it names in gateway.json. The window's calls go there;
 * what belongs to the desktop stays here (Settings → Desktop, the file manager, Electron's
 * version); approvals reach the native dialog from its events; the tray pauses its channels.
 *
 * The agent's runs are its own: quitting the app neither drains nor cancels them.
 */
import { stat } from 'node:fs/promises';
import type {
  AssistantEvent,
  BackgroundView,
  ChannelName,
  IpcResult,
} from '../../../shared/ipc.js';
import { InvalidRequest, NotFound } from '../assistant/index.js';
import { lockHolder } from '../daemon/index.js';
import type {
  AgentActivity,
  DesktopPreferences,
  RoutedApproval,
  ShellCoreParts,
} from '../desktop/index.js';
import { dispatch, type IpcHandlers } from '../ipc/index.js';
import { ConfinementError, confine } from '../workspace-fs/index.js';
import { type CoreLink, connectGateway } from './client.js';
import { readGatewayFile } from './gateway-file.js';

export interface AttachedDesktop {
  /** Where the agent runs, e.g. "http://127.0.0.1:PORT" (for the log). */
  readonly where: string;
  /** The agent holding the data directory. */
  readonly pid: number;
  /** Carries one call of the window: to the agent, or answered here for the desktop's own. */
  route(channel: ChannelName, request: unknown): Promise<IpcResult<unknown>>;
  subscribe(listener: (event: AssistantEvent) => void): () => void;
  /** The tray, the native approval dialog and Alt+N, over the agent's events. */
  shell: ShellCoreParts;
  /** The work the agent's pause holds, for the tray's count. */
  held: { held(): unknown[]; onChange(listener: () => void): () => void };
  /** The tray's pause, applied to the agent's channels; resolves once the agent took it. */
  setPaused(paused: boolean): Promise<void>;
  paused(): boolean;
  /** The agent went away (stopped, crashed): the app cannot go on attached. */
  onLost(listener: () => void): () => void;
  close(): Promise<void>;
}

export interface AttachOptions {
  electronVersion: string;
  /** Shows a folder or file in the system's file manager. */
  reveal: (target: { path: string; isFolder: boolean }) => Promise<void>;
  desktop: () => Pick<DesktopPreferences, 'view' | 'update'> | undefined;
  /** How long to wait for the agent's welcome (a busy machine: seconds, not milliseconds). */
  timeoutMs?: number;
}

/**
 * Attaches when another live process holds the data directory and its gateway answers; resolves
 * undefined otherwise (nothing runs there, or it serves no gateway: the app then starts its own).
 */
export async function attachToRunningAgent(
  dataDir: string,
  options: AttachOptions,
): Promise<AttachedDesktop | undefined> {
  const holder = lockHolder(dataDir);
  if (holder === undefined || holder === process.pid) return undefined;
  const named = readGatewayFile(dataDir);
  if (!named || named.pid !== holder) return undefined;
  let link: CoreLink;
  try {
    link = await connectGateway(
      `ws://127.0.0.1:${named.port}/ipc`,
      named.token,
      options.timeoutMs ?? 15_000,
    );
  } catch {
    return undefined;
  }
  try {
    return await attachedOver(link, holder, options);
  } catch (error) {
    link.close();
    throw error;
  }
}

async function attachedOver(
  link: CoreLink,
  pid: number,
  options: AttachOptions,
): Promise<AttachedDesktop> {
  // The approvals waiting now, then kept current from the events: the router asks for them
  // synchronously when the window hides or a notification is clicked.
  const pending = new Map<string, RoutedApproval>();
  let background: BackgroundView = await link.invoke('background.held', {});
  const heldListeners = new Set<() => void>();
  const offEvents = link.subscribe((event) => {
    if (event.topic === 'approval.requested') pending.set(event.approval.id, event.approval);
    else if (event.topic === 'approval.resolved') pending.delete(event.id);
    else if (event.topic === 'background.changed') {
      background = event.background;
      for (const listener of heldListeners) listener();
    }
  });
  for (const approval of await link.invoke('approvals.list', {})) {
    pending.set(approval.id, approval);
  }

  const local = localHandlers(link, options);
  const localEvents = new Set<(event: AssistantEvent) => void>();
  const lostListeners = new Set<() => void>();
  const offState = link.onStateChange((state) => {
    if (state === 'disconnected') for (const listener of lostListeners) listener();
  });

  return {
    where: link.where,
    pid,
    route(channel, request) {
      // Answered here: validated by the same dispatch as every other call.
      if (channel in local) return dispatch(local as IpcHandlers, channel, request);
      return link.call(channel, request);
    },
    subscribe(listener) {
      const offLink = link.subscribe(listener);
      localEvents.add(listener);
      return () => {
        offLink();
        localEvents.delete(listener);
      };
    },
    shell: {
      approvals: {
        onRequest: (listener) =>
          link.subscribe((event) => {
            if (event.topic === 'approval.requested') listener(event.approval);
          }),
        onResolved: (listener) =>
          link.subscribe((event) => {
            if (event.topic === 'approval.resolved') listener(event.id);
          }),
        pending: () => [...pending.values()],
        // The agent records it as "ui: native dialog"; a late answer is refused there, harmlessly.
        resolve: (id, verdict) =>
          link
            .invoke('approvals.resolve', { approvalId: id, verdict, reason: 'native dialog' })
            .catch(() => undefined),
      },
      // Its runs are not the app's to drain or cancel on quit: the tracker is not fed.
      onRunEvent: () => () => undefined,
      cancelRun: () => undefined,
      // Alt+N opens a draft in this window only, not in every UI attached to the agent.
      newChat: () => {
        for (const listener of localEvents) listener({ topic: 'ui.newChat' });
      },
      close: async () => {
        offEvents();
        offState();
        link.close();
      },
    },
    held: {
      held: () => background.held,
      onChange: (listener) => {
        heldListeners.add(listener);
        return () => heldListeners.delete(listener);
      },
    },
    paused: () => background.paused,
    async setPaused(paused) {
      if (!background.served || background.paused === paused) return;
      background = await link.invoke('background.setPaused', { paused });
      for (const listener of heldListeners) listener();
    },
    onLost(listener) {
      lostListeners.add(listener);
      return () => lostListeners.delete(listener);
    },
    async close() {
      offEvents();
      offState();
      link.close();
    },
  };
}

/** The channels the desktop answers itself; everything else is the agent's. */
function localHandlers(link: CoreLink, options: AttachOptions): Partial<IpcHandlers> {
  const NO_DESKTOP = 'desktop settings apply to the desktop app only';
  return {
    'app.getInfo': async () => ({
      ...(await link.invoke('app.getInfo', {})),
      electron: options.electronVersion,
      transport: 'electron' as const,
    }),
    'desktop.get': () => {
      const shell = options.desktop();
      if (!shell) throw new InvalidRequest(NO_DESKTOP);
      return { available: true, ...shell.view() };
    },
    'desktop.set': async (patch) => {
      const shell = options.desktop();
      if (!shell) throw new InvalidRequest(NO_DESKTOP);
      return { available: true, ...(await shell.update(patch)) };
    },
    'workspace.get': async () => ({
      ...(await link.invoke('workspace.get', {})),
      canOpen: true,
    }),
    'workspace.open': async ({ path }) => {
      // The agent's workspace, confined here as the agent would: a path out of it (.., a link)
      // is refused before the file manager sees it.
      const { path: root } = await link.invoke('workspace.get', {});
      const target = await confine(root, path ?? '.').catch((error: unknown) => {
        throw error instanceof ConfinementError ? new InvalidRequest(error.message) : error;
      });
      const found = await stat(target).catch(() => undefined);
      if (!found) throw new NotFound(`"${path ?? '.'}" is not in the workspace`);
      await options.reveal({ path: target, isFolder: found.isDirectory() });
      return { ok: true as const };
    },
  };
}

/**
 * The tray's pause and the agent's, kept the same both ways: the tray pauses the agent's
 * channels, and a pause set elsewhere (another attached app) shows in the tray. A pause the agent
 * refuses (it serves no channels) is logged and the tray goes back.
 */
export function bindTrayPause(
  activity: Pick<AgentActivity, 'paused' | 'setPaused' | 'onChange'>,
  attached: Pick<AttachedDesktop, 'paused' | 'setPaused' | 'held'>,
  onError: (error: unknown) => void,
): () => void {
  activity.setPaused(attached.paused());
  const offTray = activity.onChange(() => {
    if (activity.paused === attached.paused()) return;
    attached.setPaused(activity.paused).catch((error: unknown) => {
      onError(error);
      activity.setPaused(attached.paused());
    });
  });
  const offAgent = attached.held.onChange(() => activity.setPaused(attached.paused()));
  return () => {
    offTray();
    offAgent();
  };
}
