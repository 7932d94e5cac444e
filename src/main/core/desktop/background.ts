/**
 * The desktop app's background assistant: the manifest's channels and schedules on the app's
 * own agent, paused with the tray (new channel and schedule runs are held until it resumes).
 * The app takes the data dir's instance lock so a `pincer daemon` started later does not serve
 * the same channels twice; when a daemon already holds it, the app leaves the channels to it.
 */
import type { Agent } from '../agent/index.js';
import {
  ChannelHub,
  type ChannelSet,
  type HeldWork,
  type LiveChannels,
  liveChannels,
  openChannels,
} from '../channels/index.js';
import { acquireInstanceLock, InstanceLockedError } from '../daemon/index.js';
import type { AgentActivity } from './activity.js';

export interface BackgroundChannels {
  /** Undefined when a daemon serves this data dir's channels. */
  channels: ChannelSet | undefined;
  /** What the UI and the tray read of them; undefined when a daemon serves them. */
  live: LiveChannels | undefined;
  held(): HeldWork[];
  stop(): Promise<void>;
}

export async function startBackgroundChannels(
  agent: Agent,
  activity: Pick<AgentActivity, 'paused' | 'setPaused' | 'onChange'>,
  log: (line: string) => void = () => undefined,
): Promise<BackgroundChannels> {
  let release: () => void;
  try {
    release = acquireInstanceLock(agent.dataDir);
  } catch (error) {
    if (!(error instanceof InstanceLockedError)) throw error;
    log(`channels: ${error.message}; it serves the channels`);
    return { channels: undefined, live: undefined, held: () => [], stop: async () => undefined };
  }
  const hub = new ChannelHub(agent, { log });
  hub.setPaused(activity.paused);
  const off = activity.onChange(() => hub.setPaused(activity.paused));
  try {
    const channels = await openChannels(hub, { log });
    await channels.start();
    await channels.resumeInterrupted();
    return {
      channels,
      // A pause asked for over IPC (an app attached from elsewhere) goes through the tray's state.
      live: { ...liveChannels(hub, channels), setPaused: (paused) => activity.setPaused(paused) },
      held: () => hub.heldWork(),
      async stop() {
        off();
        await channels.stop();
        release();
      },
    };
  } catch (error) {
    off();
    release();
    throw error;
  }
}
