/**
 * The CKP server over real HTTP and WebSocket on 127.0.0.1, around the agent the composition
 * root opens for the served manifest. The bearer token is required on both.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { openAgent } from '../../../src/main/core/agent/index.js';
import { loadClaw } from '../../../src/main/core/ckp/loader.js';
import {
  CkpHost,
  type Listener,
  listenHttp,
  listenWebSocket,
  sessionFactory,
  ToolCalls,
} from '../../../src/main/core/ckp-server/index.js';
import { InProcessSwarm } from '../../../src/main/core/ckp-server/swarm.js';
import { CkpPeer } from '../../support/ckp-peer.js';
import { repoRoot } from '../../support/cli-run.js';
import { vaultSecrets } from '../../support/secrets.js';

const TOKEN = 'test-token-for-loopback';
let dataDir = '';
let host: CkpHost;
let http: Listener;
let ws: Listener;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-ckp-net-'));
  const manifest = path.join(repoRoot, 'test/fixtures/ckp/serve/level-3.yaml');
  const claw = await loadClaw(manifest);
  host = new CkpHost({
    claw,
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
  http = await listenHttp(open, { port: 0, token: TOKEN });
  ws = await listenWebSocket(open, { port: 0, token: TOKEN });
});

afterAll(async () => {
  await http?.close();
  await ws?.close();
  await host?.stop(0);
  await rm(dataDir, { recursive: true, force: true });
});

async function post(body: string, token = TOKEN): Promise<{ status: number; text: string }> {
  const response = await fetch(http.url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
  });
  return { status: response.status, text: await response.text() };
}

describe('CKP over HTTP', () => {
  it('binds loopback and refuses a request without the bearer token', async () => {
    expect(http.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect((await post('{}', 'wrong')).status).toBe(401);
    const get = await fetch(http.url, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(get.status).toBe(405);
  });

  it('initializes, answers a batch, and answers a notification with no body', async () => {
    const init = JSON.parse(
      (
        await post(
          JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'claw.initialize',
            params: {
              protocolVersion: '0.2.0',
              clientInfo: { name: 'http-operator', version: '1' },
              manifest: 'claw://local/claw/served',
              capabilities: { tools: {} },
            },
          }),
        )
      ).text,
    );
    expect(init.result).toMatchObject({ conformanceLevel: 'level-3', capabilities: { tools: {} } });
    expect((await post('{"jsonrpc":"2.0","method":"claw.initialized"}')).status).toBe(204);
    const batch = JSON.parse(
      (
        await post(
          JSON.stringify([
            { jsonrpc: '2.0', id: 'a', method: 'claw.status', params: {} },
            {
              jsonrpc: '2.0',
              id: 'b',
              method: 'claw.tool.call',
              params: {
                name: 'wipe-disk',
                arguments: {},
                context: { request_id: 'http-1', identity: 'http-operator' },
              },
            },
          ]),
        )
      ).text,
    ) as Array<{ id: string; result?: unknown; error?: { code: number } }>;
    expect(batch.find((a) => a.id === 'a')?.result).toMatchObject({ state: 'READY' });
    expect(batch.find((a) => a.id === 'b')?.error?.code).toBe(-32011);
    expect(JSON.parse((await post('not json')).text).error.code).toBe(-32700);
  });
});

describe('CKP over WebSocket', () => {
  it('refuses the upgrade without the token', async () => {
    const socket = new WebSocket(ws.url);
    const refused = await new Promise<boolean>((resolve) => {
      socket.on('open', () => resolve(false));
      socket.on('error', () => resolve(true));
    });
    expect(refused).toBe(true);
  });

  it('initializes, pushes heartbeats, and runs a tool call', async () => {
    const socket = new WebSocket(ws.url, { headers: { authorization: `Bearer ${TOKEN}` } });
    await new Promise<void>((resolve, reject) => {
      socket.on('open', () => resolve());
      socket.on('error', reject);
    });
    const peer = new CkpPeer((frame) => socket.send(frame));
    socket.on('message', (data) => peer.receive(String(data)));
    try {
      expect((await peer.initialize()).result).toMatchObject({ conformanceLevel: 'level-3' });
      await peer.until(() => peer.notifications.some((n) => n.method === 'claw.heartbeat'));
      const listed = await peer.call('fs/list', { path: '.' }, 'ws-1');
      expect(listed.result).toMatchObject({ isError: false });
      expect(peer.stray).toEqual([]);
    } finally {
      socket.close();
    }
  });
});
