/**
 * A `queue` channel: consumes `trigger.queue_name` (a NATS subject) through JetStream and runs
 * each message's text as a task on the agent, as a schedule's firing runs: a session of its own,
 * the same policy and approvals as a run started by hand, held while paused.
 *
 * - The subject's stream and the channel's durable pull consumer: see queue-jetstream.ts.
 * - `max_parallel` and `overlap_policy` go through the TriggerGate: with `queue` or `allow` a
 *   message is taken only when a slot is free (the rest wait on the server, which keeps them
 *   across restarts); with `skip` a message that arrives while the slots are full is dropped.
 * - A message is acknowledged only after its run is recorded and ended. The run is recorded
 *   against the message's place in its stream before it does anything, so a delivery of it
 *   again (the process died, the channel stopped) meets that run (still going, resumed, or
 *   ended) and is acknowledged without a second run. The claim is renewed while the run works,
 *   approvals it waits for included.
 * - A message that is not UTF-8 text, is empty, is longer than `processing.max_message_length`
 *   or fails the input screen is terminated (never delivered again) and reported.
 */
import type { Consumer, JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Primitive } from '../ckp/index.js';
import { originOf } from '../runtime/index.js';
import type { RunId, RunOrigin } from '../terms.js';
import type { ChannelHub } from './hub.js';
import { ChannelLimits } from './limits.js';
import { type OpenedQueue, openQueue } from './queue-jetstream.js';
import { TriggerGate } from './trigger-gate.js';
import {
  type Channel,
  type ChannelDecl,
  ChannelError,
  type ChannelStatus,
  settingsOf,
} from './types.js';

/** nats-server's own default address, as the swarm's nats backend uses. */
export const DEFAULT_NATS_SERVER = 'nats://127.0.0.1:4222';
/** How long the server waits for an acknowledgement before delivering a message again. */
export const DEFAULT_ACK_WAIT_MS = 30_000;
const PULL_EXPIRES_MS = 5_000;
const RETRY_PAUSE_MS = 1_000;
/** A rate-limited message comes back after this, rather than being dropped. */
const RATE_LIMIT_DELAY_MS = 60_000;
/** Records of messages that never came back (their stream was deleted) are kept this long. */
const FORGET_AFTER_MS = 30 * 24 * 60 * 60_000;

export interface QueueChannelOptions {
  servers: string[];
  /** The value of auth.secret_ref, when that secret is set: the NATS token. */
  token?: string;
  ackWaitMs?: number;
  log?: (line: string) => void;
}

/**
 * Where a queue channel connects: its own `x-pincer.servers`, else the swarm's NATS servers when
 * the manifest's swarm coordinates over NATS (one server for the deployment), else the default.
 */
export function queueServers(decl: ChannelDecl, swarm?: Primitive<'Swarm'>): string[] {
  const coordination = swarm?.spec.coordination;
  const fromSwarm = coordination?.backend === 'nats' ? coordination.nats?.servers : undefined;
  const servers = settingsOf(decl).servers ?? fromSwarm ?? DEFAULT_NATS_SERVER;
  return Array.isArray(servers) ? servers : [servers];
}

export class QueueChannel implements Channel {
  readonly name: string;
  readonly type = 'queue';
  private nc: NatsConnection | undefined;
  private loop: Promise<void> | undefined;
  private stopping: (() => void) | undefined;
  private refresh: ReturnType<typeof setInterval> | undefined;
  private readonly gate: TriggerGate;
  private readonly limits: ChannelLimits;
  private readonly ackWaitMs: number;
  private readonly log: (line: string) => void;
  /** Messages this process holds (running, held while paused, or waiting for their run). */
  private readonly inFlight = new Set<string>();
  private state: ChannelStatus['state'] = 'stopped';
  private lastMessageAt: string | null = null;
  private lastError: string | null = null;
  private runs = 0;
  private skipped = 0;
  private refused = 0;
  private again = 0;
  private stream = '';
  private durable = '';
  private connection = 'none';
  private pending = 0;
  private unacknowledged = 0;

  constructor(
    private readonly decl: ChannelDecl,
    private readonly hub: ChannelHub,
    private readonly options: QueueChannelOptions,
  ) {
    this.name = decl.name;
    const trigger = decl.spec.trigger;
    this.gate = new TriggerGate(trigger?.max_parallel ?? 1, trigger?.overlap_policy ?? 'skip');
    this.limits = new ChannelLimits(decl);
    this.ackWaitMs = options.ackWaitMs ?? DEFAULT_ACK_WAIT_MS;
    this.log = options.log ?? (() => undefined);
  }

  private get subject(): string {
    return this.decl.spec.trigger?.queue_name ?? '';
  }

  async start(): Promise<void> {
    if (this.nc) return;
    const subject = this.subject;
    if (!subject) this.fail(new ChannelError('not_configured', 'no trigger.queue_name'));
    if (/\s/.test(subject)) {
      this.fail(
        new ChannelError('not_configured', `trigger.queue_name "${subject}" has white space`),
      );
    }
    let opened: OpenedQueue;
    try {
      opened = await openQueue({
        servers: this.options.servers,
        token: this.options.token,
        connectionName: `pincer-${this.name}`,
        subject,
        durable: `pincer-${this.name.replace(/[^A-Za-z0-9_-]/g, '_')}`,
        ackWaitMs: this.ackWaitMs,
      });
    } catch (error) {
      this.fail(
        error instanceof ChannelError
          ? error
          : new ChannelError('unreachable', (error as Error).message),
      );
    }
    const { nc, consumer } = opened;
    this.stream = opened.stream;
    this.durable = opened.durable;
    this.nc = nc;
    this.connection = 'connected';
    this.lastError = null;
    this.state = 'running';
    this.hub.records.pruneDeliveries(this.name, new Date(Date.now() - FORGET_AFTER_MS));
    this.watch(nc);
    const stopped = new Promise<void>((resolve) => {
      this.stopping = resolve;
    });
    this.loop = this.consume(consumer, stopped);
    void this.refreshPending(consumer);
    this.refresh = setInterval(() => void this.refreshPending(consumer), PULL_EXPIRES_MS);
    this.refresh.unref();
  }

  /**
   * Stops taking messages. Runs already started go on; a message whose run ends after this is
   * not acknowledged now and is met again (and acknowledged, not run) on a later start.
   */
  async stop(): Promise<void> {
    const nc = this.nc;
    this.nc = undefined;
    this.stopping?.();
    this.stopping = undefined;
    clearInterval(this.refresh);
    this.gate.clearQueue();
    if (this.state === 'running') this.state = 'stopped';
    this.connection = 'none';
    if (!nc) return;
    await nc.close().catch(() => undefined);
    await this.loop;
    this.loop = undefined;
  }

  /** Resolves when no message of this channel runs or waits for a slot (tests, drains). */
  idle(): Promise<void> {
    return this.gate.idle();
  }

  status(): ChannelStatus {
    return {
      name: this.name,
      type: this.type,
      state: this.state,
      lastMessageAt: this.lastMessageAt,
      lastError: this.lastError,
      runs: this.runs,
      missed: 0,
      detail: {
        server: this.nc?.getServer() || this.options.servers.join(', '),
        connection: this.connection,
        subject: this.subject,
        stream: this.stream,
        consumer: this.durable,
        pending: String(this.pending),
        unacknowledged: String(this.unacknowledged),
        running: String(this.gate.running),
        skipped: String(this.skipped),
        refused: String(this.refused),
        redelivered: String(this.again),
      },
    };
  }

  private fail(error: ChannelError): never {
    this.state = 'failed';
    this.lastError = error.message;
    throw error;
  }

  /** The connection's ups and downs, as the client reconnects by itself. */
  private watch(nc: NatsConnection): void {
    void (async () => {
      for await (const event of nc.status()) {
        if (this.nc !== nc) return;
        if (event.type === 'disconnect') {
          this.connection = 'reconnecting';
          this.lastError = `disconnected from ${event.server}; reconnecting`;
          this.log(`${this.name}: ${this.lastError}`);
        } else if (event.type === 'reconnect') {
          this.connection = 'connected';
          if (this.lastError?.startsWith('disconnected from')) this.lastError = null;
          this.log(`${this.name}: reconnected to ${event.server}`);
        }
      }
    })().catch(() => undefined);
    void nc.closed().then((error) => {
      if (this.nc !== nc) return;
      this.state = 'failed';
      this.connection = 'closed';
      this.lastError = `the NATS connection closed${error ? `: ${error.message}` : ''}`;
      this.log(`${this.name}: ${this.lastError}`);
      this.nc = undefined;
      clearInterval(this.refresh);
      this.stopping?.();
    });
  }

  private async consume(consumer: Consumer, stopped: Promise<void>): Promise<void> {
    let active = true;
    void stopped.then(() => {
      active = false;
    });
    while (active) {
      // `skip` must see what arrives while the slots are full, to drop it; the others leave it
      // on the server until a slot frees.
      if (this.gate.policy !== 'skip') await Promise.race([this.gate.slot(), stopped]);
      if (!active) break;
      let msg: JsMsg | null;
      try {
        msg = await consumer.next({ expires: PULL_EXPIRES_MS });
      } catch (error) {
        if (!active) break;
        this.lastError = `pulling from ${this.stream}: ${(error as Error).message}`;
        await Promise.race([pause(RETRY_PAUSE_MS), stopped]);
        continue;
      }
      if (msg && active) this.take(msg);
      else if (msg) msg.nak();
    }
  }

  private take(msg: JsMsg): void {
    const key = `${msg.info.stream}/${msg.info.streamSequence}`;
    this.lastMessageAt = new Date().toISOString();
    this.pending = msg.info.pending;
    // The claim lapsed while this process still works on it: that work acknowledges it.
    if (this.inFlight.has(key)) return;
    this.inFlight.add(key);
    const published = String(msg.info.timestampNanos);
    const recorded = this.recordedRun(msg, key, published);
    if (recorded) {
      void this.settleRecorded(msg, key, recorded);
      return;
    }
    const admission = this.gate.submit(() => this.execute(msg, key, published));
    if (admission === 'skipped') {
      this.inFlight.delete(key);
      this.skipped++;
      this.log(
        `${this.name}: message ${key} dropped: ${this.gate.running} run(s) still going (overlap_policy ${this.gate.policy})`,
      );
      terminate(msg);
    }
  }

  /**
   * The run recorded for this message, if a delivery of it already started one. The run's origin
   * names its message too, which covers a process killed between the two records.
   */
  private recordedRun(msg: JsMsg, key: string, published: string): RunId | undefined {
    const recorded = this.hub.records.runOfDelivery(this.name, key, published);
    if (recorded || !msg.info.redelivered) return recorded;
    return this.hub.agent.runtime.interrupted().find((run) => {
      const origin = originOf(run);
      return origin?.channel === this.name && origin.message === key;
    })?.id;
  }

  private async settleRecorded(msg: JsMsg, key: string, runId: RunId): Promise<void> {
    const claim = this.claim(msg);
    try {
      this.again++;
      const handle = this.hub.followRun(runId);
      if (handle) {
        this.log(`${this.name}: message ${key} came again; its run ${runId} goes on`);
        await handle.done;
      } else {
        this.log(
          `${this.name}: message ${key} came again; its run ${runId} already ran, acknowledged without running it again`,
        );
      }
      await this.acknowledge(msg, key);
    } catch (error) {
      // Left unacknowledged: it comes again after the claim lapses.
      this.lastError = `message ${key} (run ${runId}): ${(error as Error).message}`;
      this.log(`${this.name}: ${this.lastError}`);
    } finally {
      clearInterval(claim);
      this.inFlight.delete(key);
    }
  }

  private async execute(msg: JsMsg, key: string, published: string): Promise<void> {
    const claim = this.claim(msg);
    try {
      const text = decodeText(msg.data, this.limits.maxLength);
      const origin: RunOrigin = {
        channel: this.name,
        type: this.type,
        queue: this.subject,
        message: key,
      };
      const result = await this.hub.runMessage(this.decl, this.limits, text, origin, (handle) => {
        this.hub.records.recordDelivery(this.name, key, published, handle.runId);
        this.runs++;
      });
      if (result.outcome !== 'completed') {
        this.lastError = `run ${result.runId} of message ${key} ended: ${result.outcome}`;
      }
      await this.acknowledge(msg, key);
    } catch (error) {
      if (error instanceof ChannelError) this.refuse(msg, key, error);
      else {
        this.lastError = `message ${key}: ${(error as Error).message}`;
        this.log(`${this.name}: ${this.lastError}; it comes again later`);
        settle(() => msg.nak(this.ackWaitMs));
      }
    } finally {
      clearInterval(claim);
      this.inFlight.delete(key);
    }
  }

  private refuse(msg: JsMsg, key: string, error: ChannelError): void {
    if (error.code === 'rate_limited') {
      this.log(`${this.name}: message ${key} held back: ${error.message}`);
      settle(() => msg.nak(RATE_LIMIT_DELAY_MS));
      return;
    }
    this.refused++;
    this.lastError = `${key}: ${error.message}`;
    this.log(`${this.name}: ${this.lastError}; terminated, it will not be delivered again`);
    terminate(msg);
  }

  /** Acknowledged, and confirmed by the server, the record of its run can go. */
  private async acknowledge(msg: JsMsg, key: string): Promise<void> {
    let confirmed = false;
    let why = 'the server did not confirm it';
    try {
      confirmed = await msg.ackAck();
    } catch (error) {
      why = (error as Error).message;
    }
    if (confirmed) {
      this.hub.records.forgetDelivery(this.name, key);
      return;
    }
    this.lastError = `message ${key}: acknowledgement failed (${why}); it comes again and is acknowledged then, without a second run`;
    this.log(`${this.name}: ${this.lastError}`);
  }

  /** Renews the message's claim while its work goes on (a dead process stops renewing it). */
  private claim(msg: JsMsg): ReturnType<typeof setInterval> {
    const timer = setInterval(() => settle(() => msg.working()), Math.max(50, this.ackWaitMs / 3));
    timer.unref();
    return timer;
  }

  private async refreshPending(consumer: Consumer): Promise<void> {
    if (this.connection !== 'connected') return;
    const info = await consumer.info().catch(() => undefined);
    if (!info) return;
    this.pending = info.num_pending;
    this.unacknowledged = info.num_ack_pending;
  }
}

/** The message as the run's text: UTF-8, not blank, within the channel's bound. */
function decodeText(data: Uint8Array, maxLength: number): string {
  // A UTF-8 character is at most 4 bytes: a body past this cannot be within the bound.
  if (data.length > maxLength * 4) {
    throw new ChannelError(
      'too_large',
      `message refused: ${data.length} bytes, this channel takes at most ${maxLength} characters`,
    );
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    throw new ChannelError('bad_request', 'message refused: it is not UTF-8 text');
  }
  if (!text.trim()) throw new ChannelError('bad_request', 'message refused: it is empty');
  return text;
}

function terminate(msg: JsMsg): void {
  settle(() => msg.term());
}

/** An acknowledgement on a closed connection is lost; the server delivers the message again. */
function settle(send: () => void): void {
  try {
    send();
  } catch {
    // See above.
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
