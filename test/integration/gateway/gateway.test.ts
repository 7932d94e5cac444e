import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type Gateway, startAssistantGateway } from '../../../src/main/core/gateway/server.js';
import { RENDERER_CSP } from '../../../src/shared/csp.js';
import { WireClose } from '../../../src/shared/wire.js';
import { type AssistantFixture, scriptedAssistant } from '../../support/assistant-harness.js';

let gateway: Gateway;
let fixture: AssistantFixture;
let rendererDir = '';

beforeAll(async () => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'pincer-gw-'));
  rendererDir = path.join(root, 'renderer');
  await mkdir(rendererDir);
  await writeFile(path.join(rendererDir, 'index.html'), '<!doctype html><title>ui</title>');
  await writeFile(path.join(root, 'secret.txt'), 'outside the renderer');
  fixture = await scriptedAssistant({ delayMs: 1 });
  gateway = await startAssistantGateway({
    assistant: fixture.assistant,
    rendererDir,
    token: 'test-token-123',
    helloTimeoutMs: 300,
  });
});
afterAll(async () => {
  await gateway?.close();
  await fixture?.close();
  await rm(path.dirname(rendererDir), { recursive: true, force: true });
});

interface Conversation {
  ws: WebSocket;
  frames: unknown[];
  closed: Promise<number>;
  next(): Promise<unknown>;
}

function open(headers: Record<string, string> = {}): Promise<Conversation> {
  const ws = new WebSocket(`ws://127.0.0.1:${gateway.port}/ipc`, { headers });
  const frames: unknown[] = [];
  const waiters: ((frame: unknown) => void)[] = [];
  ws.on('message', (data) => {
    const frame = JSON.parse(data.toString());
    const waiter = waiters.shift();
    if (waiter) waiter(frame);
    else frames.push(frame);
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  const next = () =>
    frames.length > 0
      ? Promise.resolve(frames.shift())
      : new Promise((resolve) => waiters.push(resolve));
  return new Promise((resolve, reject) => {
    ws.on('open', () => resolve({ ws, frames, closed, next }));
    ws.on('unexpected-response', (_request, response) =>
      reject(new Error(`HTTP ${response.statusCode}`)),
    );
    ws.on('error', reject);
  });
}

async function authenticated(): Promise<Conversation> {
  const conversation = await open();
  conversation.ws.send(JSON.stringify({ type: 'hello', token: 'test-token-123' }));
  expect(await conversation.next()).toEqual({ type: 'welcome' });
  return conversation;
}

describe('gateway WebSocket transport', () => {
  it('answers contract calls after a hello with the right token', async () => {
    const { ws, next } = await authenticated();
    ws.send(
      JSON.stringify({ type: 'call', id: 1, channel: 'sessions.create', request: { title: 'hi' } }),
    );
    // Creating a session also pushes `sessions.changed` to every client: skip events here.
    let frame = (await next()) as { type: string };
    while (frame.type === 'event') frame = (await next()) as { type: string };
    expect(frame).toMatchObject({
      type: 'result',
      id: 1,
      result: { ok: true, value: { title: 'hi', busy: false } },
    });
    ws.close();
  });

  it('pushes the run events of a message sent over the socket, in order', async () => {
    const { ws, next } = await authenticated();
    ws.send(JSON.stringify({ type: 'call', id: 1, channel: 'chat.send', request: { text: 'hi' } }));
    const frames: Array<{
      type: string;
      event?: { topic: string; event?: { type: string; text?: string } };
    }> = [];
    let text = '';
    for (;;) {
      const frame = (await next()) as (typeof frames)[number];
      frames.push(frame);
      const run = frame.event?.topic === 'run' ? frame.event.event : undefined;
      if (run?.type === 'model.delta') text += run.text;
      if (run?.type === 'run.finished') break;
    }
    expect(frames.some((f) => f.type === 'result')).toBe(true);
    expect(text).toContain('Hello from **Pincer**');
    const types = frames.flatMap((f) => (f.event?.topic === 'run' ? [f.event.event?.type] : []));
    expect(types[0]).toBe('run.started');
    expect(types.filter((t) => t === 'model.delta').length).toBeGreaterThan(3);
    ws.close();
  });

  it('validates payloads with the same dispatch as Electron IPC', async () => {
    const { ws, next } = await authenticated();
    ws.send(JSON.stringify({ type: 'call', id: 2, channel: 'chat.send', request: { text: 42 } }));
    expect(await next()).toMatchObject({
      id: 2,
      result: { ok: false, error: { code: 'invalid_request' } },
    });
    ws.send(JSON.stringify({ type: 'call', id: 3, channel: 'fs.read', request: {} }));
    expect(await next()).toMatchObject({
      id: 3,
      result: { ok: false, error: { code: 'unknown_channel' } },
    });
    ws.close();
  });

  it('pushes nothing to a connection that has not said hello', async () => {
    const stranger = await open();
    const { ws, next } = await authenticated();
    ws.send(JSON.stringify({ type: 'call', id: 1, channel: 'chat.send', request: { text: 'hi' } }));
    for (;;) {
      const frame = (await next()) as { event?: { topic: string; event?: { type: string } } };
      if (frame.event?.topic === 'run' && frame.event.event?.type === 'run.finished') break;
    }
    expect(stranger.frames).toEqual([]);
    stranger.ws.close();
    ws.close();
  });

  it('closes on a wrong token, and on a call before hello', async () => {
    const wrong = await open();
    wrong.ws.send(JSON.stringify({ type: 'hello', token: 'test-token-124' }));
    expect(await wrong.closed).toBe(WireClose.unauthorized);

    const eager = await open();
    eager.ws.send(JSON.stringify({ type: 'call', id: 1, channel: 'app.getInfo', request: {} }));
    expect(await eager.closed).toBe(WireClose.unauthorized);
  });

  it('closes a connection that never says hello', async () => {
    const idle = await open();
    expect(await idle.closed).toBe(WireClose.helloTimeout);
  });

  it('closes on a forged frame after authentication', async () => {
    const { ws, closed } = await authenticated();
    ws.send('{"type":"call","id":"one","channel":"chat.send"}');
    expect(await closed).toBe(WireClose.badFrame);
  });

  it('refuses upgrades from other origins and to non-loopback Host names', async () => {
    await expect(open({ origin: 'http://evil.example' })).rejects.toThrow('HTTP 403');
    await expect(open({ host: `rebound.example:${gateway.port}` })).rejects.toThrow('HTTP 403');
    const ok = await open({ origin: gateway.origin });
    ok.ws.close();
  });
});

describe('gateway static files', () => {
  it('serves the renderer with the CSP and security headers', async () => {
    const response = await fetch(`${gateway.origin}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toBe(RENDERER_CSP);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.text()).toContain('<title>ui</title>');
  });

  it('never serves a file outside the renderer folder', async () => {
    for (const probe of ['/../secret.txt', '/%2e%2e/secret.txt', '/..%2fsecret.txt']) {
      const response = await fetch(`${gateway.origin}${probe}`);
      expect([403, 404]).toContain(response.status);
      expect(await response.text()).not.toContain('outside the renderer');
    }
  });

  it('answers 421 to a request for another Host (DNS rebinding)', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      request(
        { host: '127.0.0.1', port: gateway.port, path: '/', headers: { host: 'evil.example' } },
        (res) => resolve(res.statusCode ?? 0),
      )
        .on('error', reject)
        .end();
    });
    expect(status).toBe(421);
  });
});
