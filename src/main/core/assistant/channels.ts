/**
 * Settings → Channels and the held-work list: the manifest's channels as this app serves them
 * (state, last message, last error), pairing codes waiting for the owner, and the channel
 * messages and schedule firings the tray's pause holds. The live channels are connected by
 * whoever serves them (the desktop app, the daemon's attach gateway); without them every
 * declared channel reads as not served here. Pairing approval is the same record
 * `pincer channels pair CODE` writes.
 */
import type {
  AssistantEvent,
  BackgroundView,
  ChannelsView,
  ChannelView,
} from '../../../shared/ipc-schemas.js';
import type { Agent } from '../agent/index.js';
import { ChannelRecords, type ChannelStatus, type LiveChannels } from '../channels/index.js';
import { InvalidRequest, NotFound } from './types.js';

const STATE: Record<ChannelStatus['state'], ChannelView['state']> = {
  running: 'running',
  stopped: 'stopped',
  failed: 'error',
};

export class BackgroundChannels {
  private live: LiveChannels | undefined;
  private readonly records: ChannelRecords;

  constructor(
    private readonly agent: Pick<Agent, 'claw' | 'store'>,
    private readonly emit: (event: AssistantEvent) => void,
  ) {
    this.records = new ChannelRecords(agent.store.db);
  }

  /** The channels served on this agent now; returns the disconnect function. */
  connect(live: LiveChannels): () => void {
    this.live = live;
    const announce = () => this.emit({ topic: 'background.changed', background: this.held() });
    const off = live.onChange(announce);
    announce();
    return () => {
      off();
      if (this.live === live) this.live = undefined;
      announce();
    };
  }

  held(): BackgroundView {
    const live = this.live;
    if (!live) return { served: false, paused: false, held: [] };
    return {
      served: true,
      paused: live.paused(),
      held: live.held().map(({ channel, from, preview, since }) => ({
        channel,
        from,
        preview,
        since,
      })),
    };
  }

  /** The tray of a desktop app attached to this agent pauses or resumes its channels. */
  setPaused(paused: boolean): BackgroundView {
    if (!this.live) throw new InvalidRequest('no channels or schedules are served by this agent');
    this.live.setPaused(paused);
    return this.held();
  }

  list(): ChannelsView {
    const live = this.live;
    const statuses = new Map((live?.statuses() ?? []).map((status) => [status.name, status]));
    const skipped = new Map((live?.skipped ?? []).map((entry) => [entry.name, entry]));
    const channels = this.agent.claw.channels.map((decl): ChannelView => {
      const status = statuses.get(decl.name);
      if (status) {
        return {
          name: decl.name,
          type: decl.spec.type,
          state: STATE[status.state],
          lastMessageAt: status.lastMessageAt,
          lastError: status.lastError,
          runs: status.runs,
          detail: status.detail,
        };
      }
      const reason =
        skipped.get(decl.name)?.reason ??
        'not served by this app (a `pincer daemon` on this data dir may serve it)';
      return {
        name: decl.name,
        type: decl.spec.type,
        state: 'not-served',
        lastMessageAt: null,
        lastError: null,
        runs: 0,
        detail: { reason },
      };
    });
    const pairings = this.records
      .pending()
      .map(({ channel, userId, code, expiresAt }) => ({ channel, userId, code, expiresAt }));
    return { served: live !== undefined, channels, pairings };
  }

  approvePairing(code: string): ChannelsView {
    const result = this.records.pair(code, 'app');
    if (result.kind === 'unknown') throw new NotFound('no pending pairing has that code');
    if (result.kind === 'expired') {
      throw new InvalidRequest('that code has expired; the user asks again for a new one');
    }
    return this.list();
  }

  rejectPairing(code: string): ChannelsView {
    if (!this.records.reject(code)) throw new NotFound('no pending pairing has that code');
    return this.list();
  }
}
