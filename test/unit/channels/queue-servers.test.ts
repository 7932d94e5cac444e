/** Where a queue channel connects: its own setting, else the swarm's NATS servers, else the default. */
import { expect, it } from 'vitest';
import { queueServers } from '../../../src/main/core/channels/queue.js';
import type { ChannelDecl } from '../../../src/main/core/channels/types.js';
import type { Primitive } from '../../../src/main/core/ckp/index.js';
import { channelSpec, swarmSpec } from '../../../src/main/core/ckp/schemas.js';

const channel = (pincer?: Record<string, unknown>) =>
  ({
    name: 'jobs',
    spec: channelSpec.parse({
      type: 'queue',
      transport: 'polling',
      auth: { secret_ref: 'NATS_TOKEN' },
      trigger: { queue_name: 'agent.jobs' },
      ...(pincer ? { 'x-pincer': pincer } : {}),
    }),
  }) as ChannelDecl;

const swarm = (backend: 'nats' | 'in-process', servers?: string | string[]) =>
  ({
    name: 'team',
    spec: swarmSpec.parse({
      topology: 'leader-worker',
      agents: [{ identity_ref: 'me', role: 'worker' }],
      coordination: {
        message_passing: 'queue',
        backend,
        concurrency: {},
        ...(servers ? { nats: { servers } } : {}),
      },
      aggregation: { strategy: 'leader-decides' },
    }),
  }) as Primitive<'Swarm'>;

it("takes the channel's own servers first, as one URL or a list", () => {
  expect(
    queueServers(channel({ servers: 'nats://q:4222' }), swarm('nats', 'nats://s:4222')),
  ).toEqual(['nats://q:4222']);
  expect(queueServers(channel({ servers: ['nats://a:1', 'nats://b:2'] }))).toEqual([
    'nats://a:1',
    'nats://b:2',
  ]);
});

it("falls back to the swarm's NATS servers, then to the local default", () => {
  expect(queueServers(channel(), swarm('nats', ['nats://s1:4222', 'nats://s2:4222']))).toEqual([
    'nats://s1:4222',
    'nats://s2:4222',
  ]);
  expect(queueServers(channel(), swarm('in-process'))).toEqual(['nats://127.0.0.1:4222']);
  expect(queueServers(channel())).toEqual(['nats://127.0.0.1:4222']);
});
