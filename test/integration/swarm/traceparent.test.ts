/**
 * A task published over NATS carries a W3C traceparent built from the leader's Pincer trace id,
 * the same OTel trace id the telemetry module derives, so tracing tools that read NATS headers
 * join the worker's spans to the leader's trace; a delegation span's traceparent reaches the
 * worker's handler as sent.
 */
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NatsBackend } from '../../../src/main/core/swarm/nats.js';
import {
  delegationSpanId,
  otelTraceId,
  spanTraceparent,
} from '../../../src/main/core/telemetry/ids.js';
import { type NatsServer, natsMissing, startNats } from '../../support/nats.js';

const missing = natsMissing();
if (missing) console.warn(`skipping the NATS traceparent test: ${missing}`);

describe.skipIf(missing)('traceparent on NATS tasks', () => {
  let server: NatsServer;
  beforeAll(async () => {
    server = await startNats();
  });
  afterAll(() => server?.stop());

  it('is 00-<trace>-<span>-01 with the trace derived from the task trace id', async () => {
    const watcher = await connect({ servers: server.url });
    const backend = await NatsBackend.connect({ servers: [server.url] });
    try {
      const seen = new Promise<string | undefined>((resolve) => {
        const sub = watcher.subscribe('pincer.swarm.tp.tasks', {
          callback: (_error, message) => {
            sub.unsubscribe();
            resolve(message.headers?.get('traceparent'));
          },
        });
      });
      await watcher.flush();
      // No worker answers: the delegation runs out its short deadline; only the header matters.
      const report = backend
        .delegate(
          { id: 'task-1', swarm: 'tp', operation: 'op-1', description: 'x', traceId: 'tr_leader' },
          200,
        )
        .catch((error: Error) => error);
      const header = await seen;
      expect(header).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      expect(header?.split('-')[1]).toBe(otelTraceId('tr_leader'));
      expect(await report).toBeInstanceOf(Error);
    } finally {
      await watcher.close();
      await backend.close();
    }
  });

  it("reaches the worker's handler as the leader sent it: the delegation span's", async () => {
    const backend = await NatsBackend.connect({ servers: [server.url] });
    try {
      const seen: (string | undefined)[] = [];
      await backend.serve(
        { id: 'w', swarm: 'tp2', identity: 'w', role: 'worker' },
        async (_t, c) => {
          seen.push(c.traceparent);
          return { status: 'completed', result: 'ok', tokens: 0, costUsd: 0, durationMs: 0 };
        },
      );
      const sent = spanTraceparent('tr_leader', delegationSpanId('task-2'));
      const task = {
        id: 'task-2',
        swarm: 'tp2',
        operation: 'op-2',
        description: 'x',
        traceId: 'tr_leader',
      };
      expect((await backend.delegate(task, 20_000, sent)).status).toBe('completed');
      expect(seen).toEqual([sent]);
    } finally {
      await backend.close();
    }
  });
});
