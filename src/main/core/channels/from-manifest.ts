/**
 * The manifest's channels as running surfaces on one hub: telegram, webhook, cron and queue are
 * served here; the desktop's `web` channel is served by the app and `pincer gateway`; other types are
 * listed as not served, with the reason. A channel that cannot start (no token, a port in use)
 * is reported in its status and the others still start.
 */
import { settingsFromManifest } from '../sandbox/index.js';
import type { Clock } from './clock.js';
import { CronChannel } from './cron.js';
import { type ChannelHub, type HeldWork, replyText } from './hub.js';
import { QueueChannel, queueServers } from './queue.js';
import { TelegramChannel } from './telegram.js';
import type { Channel, ChannelDecl, ChannelStatus } from './types.js';
import { WebhookChannel } from './webhook.js';

export interface SkippedChannel {
  name: string;
  type: string;
  reason: string;
}

export interface ChannelSet {
  channels: Channel[];
  skipped: SkippedChannel[];
  /** Starts every channel; failures are in their status, never thrown. */
  start(): Promise<void>;
  stop(): Promise<void>;
  statuses(): ChannelStatus[];
  /** Runs a killed process left unfinished continue; their replies go to their chats. */
  resumeInterrupted(): Promise<number>;
}

export interface OpenChannelsOptions {
  log?: (line: string) => void;
  clock?: Clock;
}

export async function openChannels(
  hub: ChannelHub,
  options: OpenChannelsOptions = {},
): Promise<ChannelSet> {
  const { agent } = hub;
  const log = options.log ?? (() => undefined);
  const channels: Channel[] = [];
  const skipped: SkippedChannel[] = [];
  const secret = (decl: ChannelDecl) =>
    agent.secrets.get(decl.spec.auth.secret_ref).then((found) => found?.value ?? '');
  for (const decl of agent.claw.channels) {
    switch (decl.spec.type) {
      case 'telegram':
        channels.push(new TelegramChannel(decl, hub, { token: await secret(decl), log }));
        break;
      case 'webhook': {
        const sandbox = settingsFromManifest(agent.claw, {
          workspace: agent.governance.workspace,
          dataDir: agent.dataDir,
        });
        channels.push(
          new WebhookChannel(decl, hub, {
            secret: await secret(decl),
            allowedHosts: sandbox.network.allowedHosts,
            clock: options.clock,
            log,
          }),
        );
        break;
      }
      case 'cron':
        channels.push(
          new CronChannel(decl, hub, {
            workspace: agent.governance.workspace,
            clock: options.clock,
            log,
          }),
        );
        break;
      case 'queue': {
        // The secret auth.secret_ref names is the NATS token; unset, the server takes no token.
        const token = await secret(decl);
        channels.push(
          new QueueChannel(decl, hub, {
            servers: queueServers(decl, agent.claw.swarm),
            ...(token ? { token } : {}),
            log,
          }),
        );
        break;
      }
      case 'web':
        skipped.push({
          name: decl.name,
          type: decl.spec.type,
          reason: 'served by the desktop app and pincer gateway',
        });
        break;
      default:
        skipped.push({
          name: decl.name,
          type: decl.spec.type,
          reason: `Pincer does not serve "${decl.spec.type}" channels yet`,
        });
    }
  }
  // The secrets were read; the vault key they unlocked is zeroed again.
  agent.secrets.close();

  const byName = new Map(channels.map((channel) => [channel.name, channel]));
  return {
    channels,
    skipped,
    async start() {
      for (const channel of channels) {
        await channel.start().catch((error: Error) => {
          log(`${channel.name}: not started: ${error.message}`);
        });
      }
    },
    async stop() {
      await Promise.allSettled(channels.map((channel) => channel.stop()));
    },
    statuses: () => channels.map((channel) => channel.status()),
    async resumeInterrupted() {
      const resumed = hub.resumeInterrupted(new Set(byName.keys()));
      for (const { origin, done } of resumed) {
        void done
          .then(async (result) => {
            const channel = byName.get(origin.channel);
            if (channel instanceof TelegramChannel && origin.chatId) {
              await channel.deliver(origin.chatId, replyText(result));
            }
          })
          .catch((error: Error) => log(`${origin.channel}: resumed run failed: ${error.message}`));
      }
      return resumed.length;
    },
  };
}

/** What a UI reads of the channels served live: their state, the pause and the work it holds. */
export interface LiveChannels {
  statuses(): ChannelStatus[];
  skipped: SkippedChannel[];
  paused(): boolean;
  /** Holds new channel and schedule runs (true) or lets them and the held ones go (false). */
  setPaused(paused: boolean): void;
  held(): HeldWork[];
  /** Pause state or held work changed; returns the unsubscribe function. */
  onChange(listener: () => void): () => void;
}

export function liveChannels(hub: ChannelHub, set: ChannelSet): LiveChannels {
  return {
    statuses: () => set.statuses(),
    skipped: set.skipped,
    paused: () => hub.paused,
    setPaused: (paused) => hub.setPaused(paused),
    held: () => hub.heldWork(),
    onChange: (listener) => hub.onChange(listener),
  };
}
