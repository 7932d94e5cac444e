/**
 * What a queue channel reads through: a connection to the NATS server, the JetStream stream that
 * holds its subject (the one the server already has, or a work-queue stream made here), and a
 * durable pull consumer named after the channel, so several Pincer processes serving one channel
 * share its messages. Failures come back as ChannelErrors that say which part is missing.
 */
import {
  AckPolicy,
  type Consumer,
  type JetStreamManager,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
} from '@nats-io/jetstream';
import { connect, type NatsConnection, nanos } from '@nats-io/transport-node';
import { ChannelError } from './types.js';

const CONNECT_TIMEOUT_MS = 10_000;

export interface QueueTarget {
  servers: string[];
  token?: string;
  connectionName: string;
  subject: string;
  durable: string;
  ackWaitMs: number;
}

export interface OpenedQueue {
  nc: NatsConnection;
  consumer: Consumer;
  stream: string;
  durable: string;
}

export async function openQueue(target: QueueTarget): Promise<OpenedQueue> {
  const where = target.servers.join(', ');
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers: target.servers,
      name: target.connectionName,
      ...(target.token ? { token: target.token } : {}),
      timeout: CONNECT_TIMEOUT_MS,
      // Once connected, a server that goes away is waited for, however long it takes.
      maxReconnectAttempts: -1,
    });
  } catch (error) {
    throw new ChannelError(
      'unreachable',
      `cannot reach the NATS server at ${where}: ${(error as Error).message}`,
    );
  }
  try {
    const jsm = await jetstreamManager(nc);
    const stream = await streamFor(jsm, target.subject);
    await ensureConsumer(jsm, stream, target);
    const consumer = await jetstream(nc).consumers.get(stream, target.durable);
    return { nc, consumer, stream, durable: target.durable };
  } catch (error) {
    await nc.close().catch(() => undefined);
    if (error instanceof ChannelError) throw error;
    throw new ChannelError(
      'not_configured',
      `cannot set up JetStream for "${target.subject}" at ${where} (is the server started with -js?): ${(error as Error).message}`,
    );
  }
}

/** The stream that already takes the subject, or a work-queue stream of its own. */
async function streamFor(jsm: JetStreamManager, subject: string): Promise<string> {
  const found = await jsm.streams.find(subject).catch(() => undefined);
  if (found) return found;
  const name = `PINCER_QUEUE_${subject.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64)}`;
  await jsm.streams
    .add({ name, subjects: [subject], retention: RetentionPolicy.Workqueue })
    .catch(async (error: unknown) => {
      // Another consumer made it at the same moment.
      if ((await jsm.streams.find(subject).catch(() => undefined)) !== name) throw error;
    });
  return name;
}

async function ensureConsumer(
  jsm: JetStreamManager,
  stream: string,
  { subject, durable, ackWaitMs }: QueueTarget,
): Promise<void> {
  const existing = await jsm.consumers.info(stream, durable).catch(() => undefined);
  if (existing) {
    const filter = existing.config.filter_subject;
    if (filter === subject) return;
    throw new ChannelError(
      'not_configured',
      `the consumer ${durable} on stream ${stream} reads "${filter ?? 'everything'}", not "${subject}": remove that consumer or rename the channel`,
    );
  }
  await jsm.consumers
    .add(stream, {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      ack_wait: nanos(ackWaitMs),
      filter_subject: subject,
    })
    .catch(async (error: unknown) => {
      // Another process of this channel made it at the same moment.
      await jsm.consumers.info(stream, durable).catch(() => {
        throw error;
      });
    });
}
