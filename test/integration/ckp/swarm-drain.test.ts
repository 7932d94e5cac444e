/**
 * `claw.shutdown` drains a delegated swarm task like any other in-flight work: the task's model
 * call (a provider on 127.0.0.1 that answers only when the test lets it) is still running when
 * shutdown arrives, and shutdown waits for it, so the task completes and its report goes back
 * before the agent stops.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAgent } from '../../../src/main/core/agent/index.js';
import { loadClaw } from '../../../src/main/core/ckp/loader.js';
import { CkpHost, sessionFactory, ToolCalls } from '../../../src/main/core/ckp-server/index.js';
import { InProcessSwarm } from '../../../src/main/core/ckp-server/swarm.js';
import { openaiFrames } from '../../fixtures/vendor-streams.js';
import { CkpPeer } from '../../support/ckp-peer.js';
import { repoRoot } from '../../support/cli-run.js';
import { vaultSecrets } from '../../support/secrets.js';

let dataDir = '';
let provider: Server;
let arrived: () => void;
const modelCalled = new Promise<void>((resolve) => {
  arrived = resolve;
});
let release: () => void;
const released = new Promise<void>((resolve) => {
  release = resolve;
});

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-ckp-drain-'));
  // The provider answers a completion only once the test releases it.
  provider = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrived();
      void released.then(() => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(openaiFrames({ text: ['notes summarised'] }).join(''));
      });
    });
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  release?.();
  provider?.closeAllConnections();
  await new Promise((resolve) => provider?.close(resolve));
  await rm(dataDir, { recursive: true, force: true });
});

describe('claw.shutdown with a delegated swarm task', () => {
  it('waits for the task, whose report is sent before the agent stops', async () => {
    const { port } = provider.address() as AddressInfo;
    // The level-3 agent, its provider pointed here and without the limit that refuses every call.
    const yaml = (
      await readFile(path.join(repoRoot, 'test/fixtures/ckp/serve/level-3.yaml'), 'utf8')
    )
      .replace('http://127.0.0.1:9/v1', `http://127.0.0.1:${port}/v1`)
      .replace('limits: { tokens_per_request: 1 }', 'limits: { tokens_per_request: 100000 }');
    const manifest = path.join(dataDir, 'claw.yaml');
    await writeFile(manifest, yaml);
    const host = new CkpHost({
      claw: await loadClaw(manifest),
      open: () =>
        openAgent({
          dataDir,
          appDir: repoRoot,
          manifest,
          model: { kind: 'provider', name: 'metered' },
          tools: '**',
          secrets: vaultSecrets(dataDir),
        }),
    });
    const open = sessionFactory({
      host,
      services: {
        tools: new ToolCalls({ channel: 'ckp', type: 'ckp' }),
        swarm: new InProcessSwarm(),
      },
    });
    const events: string[] = [];
    let peer: CkpPeer | undefined;
    const session = open((frame) => peer?.receive(frame), 'ckp:test');
    peer = new CkpPeer((frame) => {
      void session.receive(frame).then((answer) => {
        if (answer) peer?.receive(answer);
      });
    });
    peer.onRequest = (request) => {
      events.push(request.method);
      return { acknowledged: true };
    };
    try {
      expect((await peer.initialize()).result).toMatchObject({ conformanceLevel: 'level-3' });
      const delegated = await peer.request('claw.swarm.delegate', {
        task_id: 'long-task',
        task: { description: 'Summarise the notes' },
        context: { request_id: 'dlg-long', swarm: 'crew' },
      });
      expect(delegated.result).toEqual({ acknowledged: true });
      await modelCalled;
      const stopping = new Promise<void>((resolve) =>
        host.onState((state) => state === 'STOPPING' && resolve()),
      );
      const shutdown = peer
        .request('claw.shutdown', { reason: 'test', timeout_ms: 60_000 })
        .then((answer) => {
          events.push('shutdown answered');
          return answer;
        });
      await stopping;
      // Still stopping: the task holds the drain open until its model call is answered.
      expect(events).toEqual([]);
      release();
      expect((await shutdown).result).toEqual({ drained: true });
      expect(events).toEqual(['claw.swarm.report', 'shutdown answered']);
      expect(peer.requests[0]?.params).toMatchObject({
        task_id: 'long-task',
        status: 'completed',
        result: { summary: 'notes summarised' },
      });
    } finally {
      await host.stop(0);
    }
  });
});
