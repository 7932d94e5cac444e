/**
 * The queue channel on a real nats-server (JetStream) and a real agent (scripted model): a
 * message runs as a task and is acknowledged only once its run is recorded and ended;
 * max_parallel and overlap_policy observed while runs wait on real approvals; a message delivered
 * again after its run was recorded does not run twice (the run ended, goes on, or was cut short
 * by a killed process and is resumed); bad messages are terminated and the
 * channel goes on; a server that is down at start fails the channel and not the others.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { type JetStreamManager, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openChannels } from '../../../src/main/core/channels/from-manifest.js';
import { QueueChannel } from '../../../src/main/core/channels/queue.js';
import type { RunHandle } from '../../../src/main/core/runtime/runtime.js';
import type { RunOrigin } from '../../../src/main/core/terms.js';
import { type ChannelAgent, channelAgent } from '../../support/channel-agent.js';
import { repoRoot } from '../../support/cli-run.js';
import { type NatsServer, natsMissing, startNats } from '../../support/nats.js';

const missing = natsMissing();
if (missing) console.warn(`skipping the queue channel suite: ${missing}`);

/** Only catches a hang: every wait below is on a condition, never on time. */
const HANG = 60_000;

async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
}

function queue(
  name: string,
  trigger: Record<string, unknown>,
  servers: string,
  extra: Record<string, unknown> = {},
) {
  return {
    name,
    type: 'queue',
    transport: 'polling',
    auth: { secret_ref: 'NATS_TOKEN' },
    trigger,
    'x-pincer': { servers },
    ...extra,
  };
}

function runsOf(f: ChannelAgent): Array<{ handle: RunHandle; origin: RunOrigin }> {
  const runs: Array<{ handle: RunHandle; origin: RunOrigin }> = [];
  f.hub.onRun((handle, origin) => runs.push({ handle, origin }));
  return runs;
}

describe.skipIf(missing)('queue channel over NATS JetStream', () => {
  let nats: NatsServer;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let fixture: ChannelAgent | undefined;
  const open: QueueChannel[] = [];

  beforeAll(async () => {
    nats = await startNats();
    nc = await connect({ servers: nats.url });
    jsm = await jetstreamManager(nc);
  }, HANG);

  afterAll(async () => {
    await nc?.close();
    await nats?.stop();
  });

  afterEach(async () => {
    for (const channel of open.splice(0)) await channel.stop();
    await fixture?.close();
    fixture = undefined;
  });

  function channel(name: string, options: { ackWaitMs?: number } = {}): QueueChannel {
    const f = fixture as ChannelAgent;
    const made = new QueueChannel(f.decl(name), f.hub, { servers: [nats.url], ...options });
    open.push(made);
    return made;
  }

  const publish = (subject: string, data: string | Uint8Array) =>
    jetstream(nc).publish(subject, data);
  const onServer = async (channel: QueueChannel) => {
    const { stream, consumer } = channel.status().detail;
    const info = await jsm.consumers.info(stream as string, consumer as string);
    const state = (await jsm.streams.info(stream as string)).state;
    return { pending: info.num_pending, unacked: info.num_ack_pending, stored: state.messages };
  };
  const approvals = () => fixture?.agent.governance.broker.pending() ?? [];
  const answer = (index = 0) => {
    const broker = fixture?.agent.governance.broker;
    broker?.resolve(broker.pending()[index]?.id as string, 'deny', 'test');
  };

  it(
    'runs a message as a task and acknowledges it only after its run is recorded and ended',
    async () => {
      fixture = await channelAgent({
        channels: [queue('jobs', { queue_name: 'agent.jobs' }, nats.url)],
      });
      const runs = runsOf(fixture);
      const jobs = channel('jobs');
      await jobs.start();
      expect(jobs.status()).toMatchObject({ state: 'running', lastError: null });
      expect(jobs.status().detail).toMatchObject({
        subject: 'agent.jobs',
        stream: 'PINCER_QUEUE_agent_jobs',
        consumer: 'pincer-jobs',
        connection: 'connected',
      });

      await publish('agent.jobs', 'write the weekly report');
      await until(() => approvals().length === 1);
      // The run is recorded and waits on a person: the message is held, not acknowledged.
      expect(runs).toHaveLength(1);
      const runId = runs[0]?.handle.runId;
      const origin = {
        channel: 'jobs',
        type: 'queue',
        queue: 'agent.jobs',
        message: 'PINCER_QUEUE_agent_jobs/1',
      };
      expect(fixture.agent.store.getRun(runId as never)?.options.origin).toEqual(origin);
      expect(await onServer(jobs)).toEqual({ pending: 0, unacked: 1, stored: 1 });

      answer();
      const result = await runs[0]?.handle.done;
      expect(result?.outcome).toBe('completed');
      await until(async () => (await onServer(jobs)).stored === 0);
      expect(await onServer(jobs)).toEqual({ pending: 0, unacked: 0, stored: 0 });
      expect(fixture.agent.governance.audit.list({ runId })[0]).toMatchObject({
        event: 'run_started',
        detail: { origin: { channel: 'jobs', queue: 'agent.jobs' } },
      });
      expect(jobs.status()).toMatchObject({ state: 'running', runs: 1 });
      expect(jobs.status().lastMessageAt).not.toBeNull();
    },
    HANG,
  );

  it(
    'overlap queue: max_parallel runs at once, the next message waits on the server for a slot',
    async () => {
      fixture = await channelAgent({
        channels: [
          queue(
            'batch',
            { queue_name: 'agent.batch', max_parallel: 2, overlap_policy: 'queue' },
            nats.url,
          ),
        ],
      });
      const runs = runsOf(fixture);
      let running = 0;
      let most = 0;
      fixture.hub.onRun((handle) => {
        most = Math.max(most, ++running);
        void handle.done.finally(() => running--);
      });
      const batch = channel('batch');
      await batch.start();
      for (const name of ['a', 'b', 'c']) await publish('agent.batch', `write ${name}`);

      await until(() => approvals().length === 2);
      expect(runs).toHaveLength(2);
      expect(await onServer(batch)).toEqual({ pending: 1, unacked: 2, stored: 3 });

      answer();
      await until(() => runs.length === 3 && approvals().length === 2);
      answer();
      answer();
      await until(async () => (await onServer(batch)).stored === 0);
      await batch.idle();
      expect(most).toBe(2);
      expect(runs.map((run) => fixture?.agent.store.getRun(run.handle.runId)?.goal)).toEqual([
        'write a',
        'write b',
        'write c',
      ]);
      expect(batch.status()).toMatchObject({ runs: 3 });
    },
    HANG,
  );

  it(
    'overlap skip: a message that arrives while the run goes is dropped, and the next one runs',
    async () => {
      fixture = await channelAgent({
        channels: [queue('single', { queue_name: 'agent.single' }, nats.url)],
      });
      const runs = runsOf(fixture);
      const single = channel('single');
      await single.start();
      await publish('agent.single', 'write first');
      await until(() => approvals().length === 1);
      await publish('agent.single', 'second');
      await until(() => single.status().detail.skipped === '1');
      // Terminated (the server hears of it a moment later): gone, and never delivered again.
      await until(async () => (await onServer(single)).unacked === 1);
      expect(await onServer(single)).toEqual({ pending: 0, unacked: 1, stored: 1 });
      answer();
      await until(async () => (await onServer(single)).stored === 0);

      await publish('agent.single', 'third');
      await until(() => runs.length === 2);
      expect((await runs[1]?.handle.done)?.reply?.content).toEqual([
        { type: 'text', text: 'echo: third' },
      ]);
      await until(async () => (await onServer(single)).stored === 0);
      expect(runs).toHaveLength(2);
    },
    HANG,
  );

  it(
    'a message delivered again after its run ended is acknowledged without running it twice',
    async () => {
      fixture = await channelAgent({
        channels: [queue('again', { queue_name: 'agent.again' }, nats.url)],
      });
      const runs = runsOf(fixture);
      const first = channel('again', { ackWaitMs: 1000 });
      await first.start();
      await publish('agent.again', 'write once');
      await until(() => approvals().length === 1);
      // The channel goes away before the run ends: the message is never acknowledged by it.
      await first.stop();
      answer();
      expect((await runs[0]?.handle.done)?.outcome).toBe('completed');
      expect(await onServer(first)).toMatchObject({ stored: 1 });

      const second = channel('again', { ackWaitMs: 1000 });
      await second.start();
      await until(async () => (await onServer(second)).stored === 0);
      expect(runs).toHaveLength(1);
      expect(second.status()).toMatchObject({ runs: 0 });
      expect(second.status().detail.redelivered).toBe('1');
      expect(fixture.agent.store.listRuns({ limit: 10 })).toHaveLength(1);
    },
    HANG,
  );

  it(
    'a message delivered again while its run still goes waits for that run, then is acknowledged',
    async () => {
      fixture = await channelAgent({
        channels: [queue('longrun', { queue_name: 'agent.longrun' }, nats.url)],
      });
      const runs = runsOf(fixture);
      const first = channel('longrun', { ackWaitMs: 1000 });
      await first.start();
      await publish('agent.longrun', 'write slowly');
      await until(() => approvals().length === 1);
      await first.stop();

      const second = channel('longrun', { ackWaitMs: 1000 });
      await second.start();
      await until(() => second.status().detail.redelivered === '1');
      // Still held by the run that goes on; no second run started.
      expect(runs).toHaveLength(1);
      expect(await onServer(second)).toMatchObject({ stored: 1, unacked: 1 });
      answer();
      await until(async () => (await onServer(second)).stored === 0);
      expect(runs).toHaveLength(1);
      expect(second.status()).toMatchObject({ runs: 0 });
    },
    HANG,
  );

  it(
    'a process killed mid-run: the message comes again and its recorded run is resumed, not run anew',
    async () => {
      const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-queue-kill-'));
      const declared = queue('crash', { queue_name: 'agent.crash' }, nats.url);
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          path.join(import.meta.dirname, 'fixtures', 'queue-worker.ts'),
          dataDir,
          JSON.stringify(declared),
          nats.url,
          '1000',
        ],
        { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const exited = new Promise((resolve) => child.once('exit', resolve));
      const lines = createInterface({ input: child.stdout as NonNullable<typeof child.stdout> });
      const seen: string[] = [];
      const waiters: Array<() => void> = [];
      lines.on('line', (line) => {
        seen.push(line);
        for (const wake of waiters.splice(0)) wake();
      });
      const line = async (prefix: string) => {
        for (;;) {
          const found = seen.find((text) => text.startsWith(prefix));
          if (found) return found;
          await new Promise<void>((resolve) => waiters.push(resolve));
        }
      };
      try {
        await line('ready');
        await publish('agent.crash', 'write through the crash');
        const runId = (await line('asking ')).slice('asking '.length);
        child.kill('SIGKILL');
        await exited;

        fixture = await channelAgent({ channels: [declared], dataDir });
        const runs = runsOf(fixture);
        expect(fixture.agent.runtime.interrupted().map((run) => run.id)).toEqual([runId]);
        const again = channel('crash', { ackWaitMs: 1000 });
        await again.start();
        await until(() => approvals().length === 1);
        expect(runs.map((run) => run.handle.runId)).toEqual([runId]);
        expect(await onServer(again)).toMatchObject({ stored: 1, unacked: 1 });
        answer();
        expect((await runs[0]?.handle.done)?.outcome).toBe('completed');
        await until(async () => (await onServer(again)).stored === 0);
        expect(fixture.agent.store.listRuns({ limit: 10 }).map((run) => run.id)).toEqual([runId]);
        expect(again.status()).toMatchObject({ runs: 0 });
        expect(again.status().detail.redelivered).toBe('1');
      } finally {
        child.kill('SIGKILL');
        for (const channel of open.splice(0)) await channel.stop();
        await fixture?.close();
        fixture = undefined;
        await rm(dataDir, { recursive: true, force: true });
      }
    },
    HANG,
  );

  it(
    'a bad message is terminated with a clear error, and the channel goes on',
    async () => {
      const lines: string[] = [];
      fixture = await channelAgent({
        channels: [
          queue('strict', { queue_name: 'agent.strict', overlap_policy: 'queue' }, nats.url, {
            processing: { max_message_length: 40 },
          }),
        ],
      });
      const runs = runsOf(fixture);
      const strict = new QueueChannel(fixture.decl('strict'), fixture.hub, {
        servers: [nats.url],
        log: (line) => lines.push(line),
      });
      open.push(strict);
      await strict.start();
      await publish('agent.strict', new Uint8Array([0x68, 0xff, 0xfe]));
      await publish('agent.strict', 'x'.repeat(41));
      await publish('agent.strict', '   ');
      await publish('agent.strict', 'fine');
      await until(() => runs.length === 1);
      await runs[0]?.handle.done;
      await until(async () => (await onServer(strict)).stored === 0);
      expect(runs).toHaveLength(1);
      expect(fixture.agent.store.getRun(runs[0]?.handle.runId as never)?.goal).toBe('fine');
      expect(strict.status()).toMatchObject({ state: 'running', runs: 1 });
      expect(strict.status().detail.refused).toBe('3');
      expect(strict.status().lastError).toBe(
        'PINCER_QUEUE_agent_strict/3: message refused: it is empty',
      );
      const refusals = lines.filter((line) => line.includes('terminated'));
      expect(refusals).toHaveLength(3);
      expect(refusals[0]).toContain('not UTF-8 text');
      expect(refusals[1]).toContain('41 characters, this channel takes at most 40');
    },
    HANG,
  );

  it(
    'pause holds a message (unacknowledged) until resume',
    async () => {
      fixture = await channelAgent({
        channels: [queue('held', { queue_name: 'agent.held' }, nats.url)],
      });
      const runs = runsOf(fixture);
      const held = channel('held');
      await held.start();
      fixture.hub.setPaused(true);
      await publish('agent.held', 'later');
      await until(() => fixture?.hub.heldWork().length === 1);
      expect(fixture.hub.heldWork()[0]).toMatchObject({ channel: 'held', from: 'agent.held' });
      expect(runs).toHaveLength(0);
      expect(await onServer(held)).toEqual({ pending: 0, unacked: 1, stored: 1 });
      fixture.hub.setPaused(false);
      await until(() => runs.length === 1);
      await runs[0]?.handle.done;
      await until(async () => (await onServer(held)).stored === 0);
    },
    HANG,
  );

  it(
    'a server that restarts: the channel reconnects and goes on taking messages',
    async () => {
      const own = await startNats();
      const lines: string[] = [];
      try {
        fixture = await channelAgent({
          channels: [queue('steady', { queue_name: 'agent.steady' }, own.url)],
        });
        const runs = runsOf(fixture);
        const steady = new QueueChannel(fixture.decl('steady'), fixture.hub, {
          servers: [own.url],
          log: (line) => lines.push(line),
        });
        open.push(steady);
        await steady.start();
        const send = async (text: string) => {
          const client = await connect({ servers: own.url });
          await jetstream(client).publish('agent.steady', text);
          await client.close();
        };
        await send('before');
        await until(() => runs.length === 1);
        await runs[0]?.handle.done;

        await own.restart();
        await until(() => lines.some((line) => line.startsWith('steady: reconnected to')));
        expect(lines.some((line) => line.startsWith('steady: disconnected from'))).toBe(true);
        expect(steady.status()).toMatchObject({ state: 'running' });
        expect(steady.status().detail.connection).toBe('connected');
        await send('after');
        await until(() => runs.length === 2);
        expect((await runs[1]?.handle.done)?.outcome).toBe('completed');
      } finally {
        for (const channel of open.splice(0)) await channel.stop();
        await own.stop();
      }
    },
    HANG,
  );

  it(
    'a server that is down at start fails the queue channel with a clear error; the others start',
    async () => {
      const down = await startNats();
      const url = down.url;
      await down.stop();
      fixture = await channelAgent({
        channels: [
          queue('orders', { queue_name: 'agent.orders' }, url),
          {
            name: 'tick',
            type: 'cron',
            transport: 'polling',
            auth: { secret_ref: 'unused' },
            trigger: { schedule: '0 0 1 1 *' },
            'x-pincer': { prompt: 'tick' },
          },
        ],
      });
      const lines: string[] = [];
      const set = await openChannels(fixture.hub, { log: (line) => lines.push(line) });
      await set.start();
      const [orders, tick] = set.statuses();
      expect(orders).toMatchObject({ name: 'orders', type: 'queue', state: 'failed' });
      expect(orders?.lastError).toContain(`cannot reach the NATS server at ${url}`);
      expect(tick).toMatchObject({ name: 'tick', state: 'running' });
      expect(lines.some((line) => line.startsWith('orders: not started: cannot reach'))).toBe(true);
      await set.stop();
    },
    HANG,
  );
});
