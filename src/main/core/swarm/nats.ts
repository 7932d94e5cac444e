/**
 * The `nats` coordination backend: swarms across processes and machines on a NATS server.
 *
 * - Tasks go into a JetStream work-queue stream; the members of a swarm share one durable pull
 *   consumer and take one task at a time. A member extends its claim while it works; one that
 *   dies stops doing so and the server delivers the task again after `ackWaitMs`, up to
 *   `maxDeliveries` times.
 * - A finished task's report is written once into a KV bucket (create fails when it exists), then
 *   sent to the leader, then acknowledged: a redelivered task that already finished is answered
 *   from the bucket and never run twice, and the leader takes the first report of a task only.
 * - Discovery: each member puts a heartbeat into a KV bucket whose entries expire.
 * - Dead letters: a stream of their own, read back by `deadLetters`.
 * - Delegation is request/reply with a deadline: the task names the leader's reply subject.
 */
import {
  AckPolicy,
  type Consumer,
  type JetStreamClient,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
} from '@nats-io/jetstream';
import { type KV, Kvm } from '@nats-io/kv';
import {
  type ConnectionOptions,
  connect,
  createInbox,
  headers,
  type NatsConnection,
  nanos,
  type Subscription,
} from '@nats-io/transport-node';
import { traceparent } from '../telemetry/index.js';
import {
  type BackendOptions,
  DEFAULT_BACKEND_OPTIONS,
  type DeadLetter,
  type Peer,
  type Serving,
  type SwarmBackend,
  SwarmError,
  type SwarmReport,
  type SwarmTask,
  type TaskHandler,
} from './types.js';

const TASKS = 'PINCER_SWARM_TASKS';
const DEAD = 'PINCER_SWARM_DEAD';
const PEERS = 'pincer-swarm-peers';
const RESULTS = 'pincer-swarm-results';
const REPLY_HEADER = 'Pincer-Reply';
/** Subject tokens and KV keys: what a swarm name and a peer id may be made of. */
const TOKEN = /^[A-Za-z0-9_-]{1,64}$/;

const subject = {
  tasks: (swarm: string) => `pincer.swarm.${swarm}.tasks`,
  dead: (swarm: string) => `pincer.swarm.${swarm}.dead`,
  control: (swarm: string) => `pincer.swarm.${swarm}.control`,
};

type Control = { type: 'stop'; operation: string } | { type: 'broadcast'; message: unknown };

export interface NatsSettings {
  servers: string[];
  /** Resolved secrets, never references: the caller reads them from the keychain. */
  token?: string;
  user?: string;
  pass?: string;
  tls?: { caFile?: string; certFile?: string; keyFile?: string };
  name?: string;
}

export class NatsBackend implements SwarmBackend {
  readonly kind = 'nats' as const;
  private readonly waiting = new Map<string, (report: SwarmReport) => void>();
  private readonly replyPrefix = createInbox();
  private readonly replies: Subscription;
  private readonly closers = new Set<() => Promise<void>>();

  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly peers: KV,
    private readonly results: KV,
    private readonly options: BackendOptions,
  ) {
    this.replies = nc.subscribe(`${this.replyPrefix}.*`, {
      callback: (error, msg) => {
        if (error) return;
        const report = parse<SwarmReport>(msg.data);
        const settle = report && this.waiting.get(report.taskId);
        if (!settle) return; // a duplicate, or a task whose deadline passed
        this.waiting.delete(report.taskId);
        settle(report);
      },
    });
  }

  static async connect(
    settings: NatsSettings,
    options: Partial<BackendOptions> = {},
  ): Promise<NatsBackend> {
    const merged = { ...DEFAULT_BACKEND_OPTIONS, ...options };
    const connection: ConnectionOptions = {
      servers: settings.servers,
      name: settings.name ?? 'pincer',
      ...(settings.token ? { token: settings.token } : {}),
      ...(settings.user ? { user: settings.user, pass: settings.pass } : {}),
      ...(settings.tls ? { tls: settings.tls } : {}),
      maxReconnectAttempts: 10,
    };
    let nc: NatsConnection;
    try {
      nc = await connect(connection);
    } catch (error) {
      throw new SwarmError(
        'connection',
        `cannot reach the NATS server at ${settings.servers.join(', ')}: ${(error as Error).message}`,
      );
    }
    try {
      const jsm = await jetstreamManager(nc);
      await ensureStream(jsm, TASKS, ['pincer.swarm.*.tasks'], RetentionPolicy.Workqueue);
      await ensureStream(jsm, DEAD, ['pincer.swarm.*.dead'], RetentionPolicy.Limits);
      const kvm = new Kvm(nc);
      const peers = await kvm.create(PEERS, { ttl: merged.peerTtlMs });
      const results = await kvm.create(RESULTS, { ttl: 3_600_000 });
      return new NatsBackend(nc, jetstream(nc), peers, results, merged);
    } catch (error) {
      await nc.close();
      throw new SwarmError(
        'connection',
        `the NATS server has no usable JetStream (start it with -js): ${(error as Error).message}`,
      );
    }
  }

  async serve(peer: Omit<Peer, 'status' | 'seenAt'>, handler: TaskHandler): Promise<Serving> {
    checkToken('swarm', peer.swarm);
    checkToken('peer id', peer.id);
    const consumer = await this.consumer(peer.swarm);
    const state: Peer = { ...peer, status: 'ready', seenAt: '' };
    const beat = () => {
      state.seenAt = new Date().toISOString();
      return this.peers.put(`${peer.swarm}.${peer.id}`, JSON.stringify(state)).catch(() => 0);
    };
    await beat();
    const heartbeat = setInterval(beat, Math.max(100, this.options.peerTtlMs / 3));
    const running = new Map<string, AbortController>();
    const stopped = new Set<string>();
    const control = this.nc.subscribe(subject.control(peer.swarm), {
      callback: (error, msg) => {
        const message = error ? undefined : parse<Control>(msg.data);
        if (message?.type !== 'stop') return;
        stopped.add(message.operation);
        running.get(message.operation)?.abort('stopped');
      },
    });
    let active = true;
    const loop = (async () => {
      while (active) {
        const msg = await consumer.next({ expires: 1000 }).catch(() => null);
        if (!msg) continue;
        const task = parse<SwarmTask>(msg.data);
        const reply = msg.headers?.get(REPLY_HEADER);
        if (!task || !reply) {
          msg.term();
          continue;
        }
        const attempt = msg.info.deliveryCount;
        const finished = await this.results.get(task.id).catch(() => null);
        if (finished?.operation === 'PUT') {
          // It finished in an earlier delivery whose worker died before acknowledging.
          this.nc.publish(reply, finished.value);
          msg.ack();
          continue;
        }
        if (stopped.has(task.operation)) {
          this.nc.publish(reply, JSON.stringify(failed(task, peer.id, attempt, 'stopped')));
          msg.ack();
          continue;
        }
        const controller = new AbortController();
        running.set(task.operation, controller);
        state.status = 'busy';
        void beat();
        // The claim is renewed while the work goes on; a dead worker stops renewing it.
        const claim = setInterval(() => msg.working(), Math.max(50, this.options.ackWaitMs / 3));
        const started = Date.now();
        let report: SwarmReport;
        try {
          const outcome = await handler(task, {
            signal: controller.signal,
            attempt,
            ...(msg.headers?.has('traceparent')
              ? { traceparent: msg.headers.get('traceparent') }
              : {}),
          });
          report = { ...outcome, taskId: task.id, worker: peer.id, attempt };
        } catch (error) {
          clearInterval(claim);
          running.delete(task.operation);
          state.status = 'ready';
          if (attempt < this.options.maxDeliveries && active) {
            msg.nak();
            continue;
          }
          const reason = `delivered ${attempt} times; last: ${(error as Error).message}`;
          await this.deadLetter(task, reason);
          this.nc.publish(reply, JSON.stringify(failed(task, peer.id, attempt, reason, started)));
          msg.term();
          continue;
        }
        clearInterval(claim);
        running.delete(task.operation);
        state.status = 'ready';
        try {
          await this.results.create(task.id, JSON.stringify(report));
        } catch {
          // Another delivery finished first: its report is the one.
          const first = await this.results.get(task.id).catch(() => null);
          if (first?.operation === 'PUT') report = first.json<SwarmReport>();
        }
        this.nc.publish(reply, JSON.stringify(report));
        msg.ack();
        void beat();
      }
    })();
    const stop = async () => {
      active = false;
      clearInterval(heartbeat);
      control.unsubscribe();
      for (const controller of running.values()) controller.abort('stopped');
      await loop;
      await this.peers.delete(`${peer.swarm}.${peer.id}`).catch(() => {});
      this.closers.delete(stop);
    };
    this.closers.add(stop);
    return { stop };
  }

  async delegate(task: SwarmTask, timeoutMs: number, parent?: string): Promise<SwarmReport> {
    checkToken('swarm', task.swarm);
    checkToken('task id', task.id);
    await this.consumer(task.swarm);
    const reply = `${this.replyPrefix}.${task.id}`;
    const report = new Promise<SwarmReport>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(task.id);
        reject(new SwarmError('deadline', `no report for task ${task.id} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(task.id, (value) => {
        clearTimeout(timer);
        resolve(value);
      });
    });
    const head = headers();
    head.set(REPLY_HEADER, reply);
    // W3C trace context: the leader's delegation span, which the worker's run is a child of (a
    // sender with none names the trace's root; the worker's run then joins by task.traceId).
    const context = parent ?? (task.traceId ? traceparent(task.traceId) : undefined);
    if (context) head.set('traceparent', context);
    // msgID: a publish retried after a lost acknowledgement is not queued twice.
    await this.js.publish(subject.tasks(task.swarm), JSON.stringify(task), {
      headers: head,
      msgID: task.id,
    });
    return report;
  }

  async broadcast(swarm: string, message: unknown): Promise<void> {
    checkToken('swarm', swarm);
    this.nc.publish(
      subject.control(swarm),
      JSON.stringify({ type: 'broadcast', message } satisfies Control),
    );
    await this.nc.flush();
  }

  onBroadcast(swarm: string, listener: (message: unknown) => void): () => void {
    checkToken('swarm', swarm);
    const subscription = this.nc.subscribe(subject.control(swarm), {
      callback: (error, msg) => {
        const control = error ? undefined : parse<Control>(msg.data);
        if (control?.type === 'broadcast') listener(control.message);
      },
    });
    return () => subscription.unsubscribe();
  }

  async stopOperation(swarm: string, operation: string): Promise<void> {
    checkToken('swarm', swarm);
    this.nc.publish(subject.control(swarm), JSON.stringify({ type: 'stop', operation }));
    await this.nc.flush();
  }

  async discover(swarm?: string): Promise<Peer[]> {
    const found: Peer[] = [];
    // A key is listed twice when its peer's heartbeat lands while the listing runs.
    const seen = new Set<string>();
    const keys = await this.peers.keys(swarm ? `${swarm}.*` : '>');
    for await (const key of keys) {
      if (seen.has(key)) continue;
      seen.add(key);
      const entry = await this.peers.get(key).catch(() => null);
      if (entry?.operation !== 'PUT') continue;
      const peer = parse<Peer>(entry.value);
      if (peer) found.push(peer);
    }
    return found.sort((a, b) => a.id.localeCompare(b.id));
  }

  async deadLetter(task: SwarmTask, reason: string): Promise<void> {
    const letter: DeadLetter = { task, reason, at: new Date().toISOString() };
    await this.js.publish(subject.dead(task.swarm), JSON.stringify(letter));
  }

  async deadLetters(swarm: string): Promise<DeadLetter[]> {
    checkToken('swarm', swarm);
    // One subject as a string: nats-server 2.9 knows filter_subject only, not filter_subjects.
    const reader = await this.js.consumers.get(DEAD, { filter_subjects: subject.dead(swarm) });
    const letters: DeadLetter[] = [];
    let pending = (await reader.info()).num_pending;
    while (pending-- > 0) {
      const msg = await reader.next({ expires: 2000 });
      if (!msg) break;
      const letter = parse<DeadLetter>(msg.data);
      if (letter) letters.push(letter);
    }
    return letters;
  }

  async close(): Promise<void> {
    for (const stop of [...this.closers]) await stop();
    this.replies.unsubscribe();
    for (const [id] of this.waiting) this.waiting.delete(id);
    await this.nc.drain().catch(() => this.nc.close());
  }

  /** The swarm's shared work consumer, made on first use (by a worker or a leader). */
  private async consumer(swarm: string): Promise<Consumer> {
    const durable = `workers-${swarm}`;
    const jsm = await jetstreamManager(this.nc);
    try {
      await jsm.consumers.info(TASKS, durable);
    } catch {
      await jsm.consumers
        .add(TASKS, {
          durable_name: durable,
          ack_policy: AckPolicy.Explicit,
          ack_wait: nanos(this.options.ackWaitMs),
          max_deliver: this.options.maxDeliveries,
          filter_subject: subject.tasks(swarm),
        })
        .catch(async (error: unknown) => {
          // Another member made it at the same moment.
          await jsm.consumers.info(TASKS, durable).catch(() => {
            throw error;
          });
        });
    }
    return this.js.consumers.get(TASKS, durable);
  }
}

async function ensureStream(
  jsm: Awaited<ReturnType<typeof jetstreamManager>>,
  name: string,
  subjects: string[],
  retention: RetentionPolicy,
): Promise<void> {
  try {
    await jsm.streams.info(name);
  } catch {
    await jsm.streams.add({ name, subjects, retention }).catch(async (error) => {
      await jsm.streams.info(name).catch(() => {
        throw error;
      });
    });
  }
}

function failed(
  task: SwarmTask,
  worker: string,
  attempt: number,
  reason: string,
  started = Date.now(),
): SwarmReport {
  return {
    taskId: task.id,
    status: 'failed',
    result: reason,
    worker,
    tokens: 0,
    costUsd: 0,
    durationMs: Date.now() - started,
    attempt,
  };
}

function checkToken(what: string, value: string): void {
  if (!TOKEN.test(value))
    throw new SwarmError('bad_task', `a ${what} is letters, digits, - and _ (got "${value}")`);
}

function parse<T>(data: Uint8Array): T | undefined {
  try {
    return JSON.parse(new TextDecoder().decode(data)) as T;
  } catch {
    return undefined;
  }
}
