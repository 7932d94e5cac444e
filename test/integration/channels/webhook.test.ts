/**
 * The webhook channel over real HTTP on 127.0.0.1, on a real agent (scripted model): signed
 * requests answered, bad or missing signatures, stale timestamps, replays and oversized bodies
 * refused, access control by user, and callbacks that pass the same address checks as net/fetch.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { ChannelLimits } from '../../../src/main/core/channels/limits.js';
import {
  SIGNATURE_HEADER,
  signWebhook,
  TIMESTAMP_HEADER,
  WebhookChannel,
} from '../../../src/main/core/channels/webhook.js';
import { type ChannelAgent, channelAgent } from '../../support/channel-agent.js';

const SECRET = 'webhook-test-secret';
let fixture: ChannelAgent | undefined;
let channel: WebhookChannel | undefined;
const servers: http.Server[] = [];
afterEach(async () => {
  await channel?.stop();
  channel = undefined;
  for (const server of servers.splice(0)) server.close();
  await fixture?.close();
  fixture = undefined;
});

function hook(extra: Record<string, unknown> = {}) {
  return {
    name: 'hook',
    type: 'webhook',
    transport: 'webhook',
    auth: { secret_ref: 'HOOK_SECRET' },
    'x-pincer': { listen: '127.0.0.1:0' },
    ...extra,
  };
}

async function open(extra: Record<string, unknown> = {}, allowedHosts: string[] = []) {
  fixture = await channelAgent({ channels: [hook(extra)] });
  channel = new WebhookChannel(fixture.decl('hook'), fixture.hub, { secret: SECRET, allowedHosts });
  await channel.start();
  return channel.status().detail.url as string;
}

async function post(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(url, { method: 'POST', body, headers });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

function signed(body: unknown, at = Math.floor(Date.now() / 1000)) {
  const text = JSON.stringify(body);
  const timestamp = String(at);
  return {
    text,
    headers: {
      'content-type': 'application/json',
      [TIMESTAMP_HEADER]: timestamp,
      [SIGNATURE_HEADER]: signWebhook(SECRET, timestamp, text),
    },
  };
}

it('answers a signed request with the reply, and records where the run came from', async () => {
  const url = await open();
  const request = signed({ text: 'hello there', user: 'ci-bot', chat: 'builds' });
  const { status, json } = await post(url, request.text, request.headers);
  expect(status).toBe(200);
  expect(json).toMatchObject({ reply: 'echo: hello there', outcome: 'completed' });
  const run = fixture?.agent.store.getRun(json.run_id as never);
  expect(run?.options.origin).toEqual({
    channel: 'hook',
    type: 'webhook',
    userId: 'ci-bot',
    chatId: 'builds',
    role: 'user',
  });
  // The same chat keeps its session.
  const again = signed({ text: 'second', user: 'ci-bot', chat: 'builds' });
  const second = await post(url, again.text, again.headers);
  expect(fixture?.agent.store.getRun(second.json.run_id as never)?.sessionId).toBe(run?.sessionId);
  expect(channel?.status()).toMatchObject({ state: 'running', runs: 2 });
});

it('refuses a missing or wrong signature, a stale timestamp and a replay, and runs nothing', async () => {
  const url = await open();
  const body = JSON.stringify({ text: 'run me' });
  expect((await post(url, body)).status).toBe(401);
  const now = String(Math.floor(Date.now() / 1000));
  const wrong = await post(url, body, {
    [TIMESTAMP_HEADER]: now,
    [SIGNATURE_HEADER]: signWebhook('another-secret', now, body),
  });
  expect(wrong).toMatchObject({ status: 401, json: { error: 'bad_signature' } });
  // A signature over another body does not carry over.
  const tampered = await post(url, JSON.stringify({ text: 'run me!' }), {
    [TIMESTAMP_HEADER]: now,
    [SIGNATURE_HEADER]: signWebhook(SECRET, now, body),
  });
  expect(tampered.status).toBe(401);
  const old = signed({ text: 'run me' }, Math.floor(Date.now() / 1000) - 3600);
  expect(await post(url, old.text, old.headers)).toMatchObject({
    status: 401,
    json: { error: 'stale' },
  });
  expect(fixture?.agent.store.listRuns()).toEqual([]);

  const fresh = signed({ text: 'once only' });
  expect((await post(url, fresh.text, fresh.headers)).status).toBe(200);
  expect(await post(url, fresh.text, fresh.headers)).toMatchObject({
    status: 409,
    json: { error: 'replayed' },
  });
  expect(fixture?.agent.store.listRuns()).toHaveLength(1);
});

it('refuses bodies over the bound, malformed bodies and messages over max_message_length', async () => {
  const url = await open({ processing: { max_message_length: 20 } });
  const huge = signed({ text: 'x'.repeat(300_000) });
  expect((await post(url, huge.text, huge.headers)).status).toBe(413);
  const long = signed({ text: 'this message is longer than twenty characters' });
  expect(await post(url, long.text, long.headers)).toMatchObject({
    status: 413,
    json: { error: 'too_large', message: expect.stringContaining('at most 20') },
  });
  const extra = signed({ text: 'hi', admin: true });
  expect((await post(url, extra.text, extra.headers)).status).toBe(400);
  expect(fixture?.agent.store.listRuns()).toEqual([]);
});

it('with access control declared, a user not on the allowlist is refused', async () => {
  const url = await open({ access_control: { mode: 'allowlist', allowed_ids: ['deploy-bot'] } });
  const stranger = signed({ text: 'hello', user: 'someone-else' });
  expect((await post(url, stranger.text, stranger.headers)).status).toBe(403);
  const known = signed({ text: 'hello', user: 'deploy-bot' });
  expect((await post(url, known.text, known.headers)).status).toBe(200);
});

it('a callback to an internal address is refused unless the sandbox grants that address', async () => {
  const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
  const target = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      response.end('ok');
    });
  });
  servers.push(target);
  target.listen(0, '127.0.0.1');
  await once(target, 'listening');
  const port = (target.address() as AddressInfo).port;
  const callback = `http://127.0.0.1:${port}/done`;

  const url = await open();
  const refused = signed({ text: 'hi', callback_url: callback });
  expect(await post(url, refused.text, refused.headers)).toMatchObject({
    status: 400,
    json: { message: expect.stringContaining('internal address') },
  });
  const metadata = signed({ text: 'hi', callback_url: 'http://169.254.169.254/latest' });
  expect((await post(url, metadata.text, metadata.headers)).status).toBe(400);
  await channel?.stop();
  await fixture?.close();

  const granted = await open({}, [`127.0.0.1:${port}`]);
  const request = signed({ text: 'call me back', callback_url: callback });
  expect(await post(granted, request.text, request.headers)).toMatchObject({
    status: 202,
    json: { accepted: true },
  });
  while (received.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  const [delivered] = received;
  expect(JSON.parse(delivered?.body ?? '')).toMatchObject({ reply: 'echo: call me back' });
  const timestamp = delivered?.headers[TIMESTAMP_HEADER] as string;
  expect(delivered?.headers[SIGNATURE_HEADER]).toBe(
    signWebhook(SECRET, timestamp, delivered?.body ?? ''),
  );
});

it('while paused a request without callback is told to retry, and nothing runs', async () => {
  const url = await open();
  fixture?.hub.setPaused(true);
  const request = signed({ text: 'later' });
  const response = await fetch(url, {
    method: 'POST',
    body: request.text,
    headers: request.headers,
  });
  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe('60');
  expect(fixture?.agent.store.listRuns()).toEqual([]);
});

it('rate limits per sender', () => {
  const decl = {
    spec: { processing: { rate_limit: { messages_per_minute: 60, burst: 2 } } },
  } as never;
  let now = 0;
  const limits = new ChannelLimits(decl, () => now);
  limits.admit('a', 'one');
  limits.admit('a', 'two');
  expect(() => limits.admit('a', 'three')).toThrow(/more than 60 a minute/);
  limits.admit('b', 'another sender has its own bucket');
  now += 1000;
  limits.admit('a', 'a second later one token is back');
});
