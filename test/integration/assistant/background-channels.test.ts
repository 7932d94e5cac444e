/**
 * The background assistant through the IPC contract, over the real hub: a Telegram channel
 * (against the suite's Bot API server on 127.0.0.1) served on the assistant's own agent by
 * `startBackgroundChannels`, connected to the assistant as the desktop app connects it. Work the
 * pause holds is listed by `background.held` (and pushed as `background.changed`); channels and
 * pairing codes by `channels.list`; approving a code in `channels.approvePairing` lets that user
 * chat, refusing one in `channels.rejectPairing` does not.
 */
import { afterEach, expect, it } from 'vitest';
import { assistantOver } from '../../../src/main/core/assistant/index.js';
import { AgentActivity } from '../../../src/main/core/desktop/activity.js';
import { startBackgroundChannels } from '../../../src/main/core/desktop/background.js';
import { dispatch } from '../../../src/main/core/ipc/dispatch.js';
import { createCoreHandlers } from '../../../src/main/core/ipc/handlers.js';
import {
  type AssistantEvent,
  type ChannelName,
  type ResponseOf,
  unwrapResult,
} from '../../../src/shared/ipc.js';
import { FakeBotApi, type SentCall } from '../../fixtures/bot-api-server.js';
import { type ChannelAgent, channelAgent } from '../../support/channel-agent.js';

const OWNER = 111;
const FRIEND = 222;
const STRANGER = 333;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const replyTo = (chat: number, text: string | RegExp) => (call: SentCall) =>
  call.method === 'sendMessage' &&
  String(call.body.chat_id) === String(chat) &&
  (typeof text === 'string' ? call.body.text === text : text.test(String(call.body.text)));

async function setUp(access: Record<string, unknown>) {
  const api = new FakeBotApi();
  const apiRoot = await api.start();
  cleanups.push(() => api.close());
  const fixture: ChannelAgent = await channelAgent({
    channels: [
      {
        name: 'phone',
        type: 'telegram',
        transport: 'polling',
        auth: { secret_ref: 'TELEGRAM_TOKEN' },
        access_control: access,
        'x-pincer': { api_root: apiRoot },
      },
    ],
  });
  await fixture.agent.secrets.set('TELEGRAM_TOKEN', api.token);
  const assistant = await assistantOver(fixture.agent);
  cleanups.push(async () => {
    await assistant.close();
    await fixture.close();
  });
  const events: AssistantEvent[] = [];
  assistant.subscribe((event) => events.push(event));
  const activity = new AgentActivity();
  const background = await startBackgroundChannels(fixture.agent, activity);
  if (!background.live) throw new Error('the channels were not served here');
  const disconnect = assistant.channels.connect(background.live);
  cleanups.push(async () => {
    disconnect();
    await background.stop();
  });
  const handlers = createCoreHandlers({ assistant, electronVersion: null });
  const call = async <C extends ChannelName>(channel: C, request: unknown) =>
    unwrapResult(await dispatch(handlers, channel, request)) as ResponseOf<C>;
  return { api, fixture, activity, events, handlers, call };
}

it('lists what the pause holds, pushes each change, and runs it on resume', async () => {
  const { api, activity, events, call } = await setUp({
    mode: 'allowlist',
    allowed_ids: [String(OWNER)],
  });
  expect(await call('background.held', {})).toEqual({ served: true, paused: false, held: [] });
  const [phone] = (await call('channels.list', {})).channels;
  expect(phone).toMatchObject({ name: 'phone', type: 'telegram', state: 'running' });

  activity.setPaused(true);
  await expect.poll(async () => (await call('background.held', {})).paused).toBe(true);
  api.userSays(OWNER, 'remind me about the dentist');
  await expect
    .poll(async () => (await call('background.held', {})).held)
    .toEqual([
      {
        channel: 'phone',
        from: String(OWNER),
        preview: expect.stringContaining('remind me about the dentist'),
        since: expect.any(String),
      },
    ]);
  const pushed = events.filter((event) => event.topic === 'background.changed');
  expect(pushed.at(-1)).toMatchObject({
    background: { paused: true, held: [{ channel: 'phone' }] },
  });
  expect(api.messagesTo(OWNER)).toEqual([]);

  activity.setPaused(false);
  await api.waitFor(replyTo(OWNER, 'echo: remind me about the dentist'));
  expect(await call('background.held', {})).toEqual({ served: true, paused: false, held: [] });
  const status = (await call('channels.list', {})).channels[0];
  expect(status?.lastMessageAt).not.toBeNull();
  expect(status?.runs).toBe(1);
});

it('shows pairing codes; approving one lets that user chat, rejecting one does not', async () => {
  const { api, fixture, call, handlers } = await setUp({
    mode: 'pairing',
    pairing: { code_expiry_minutes: 30, max_pending: 5 },
  });
  api.userSays(FRIEND, 'hi');
  const offer = await api.waitFor(replyTo(FRIEND, /Pairing code: ([A-Z0-9]{8})/));
  const code = /Pairing code: ([A-Z0-9]{8})/.exec(String(offer.body.text))?.[1] as string;
  api.userSays(STRANGER, 'me too');
  const other = await api.waitFor(replyTo(STRANGER, /Pairing code: ([A-Z0-9]{8})/));
  const otherCode = /Pairing code: ([A-Z0-9]{8})/.exec(String(other.body.text))?.[1] as string;

  const listed = await call('channels.list', {});
  expect(listed.pairings).toEqual([
    { channel: 'phone', userId: String(FRIEND), code, expiresAt: expect.any(String) },
    { channel: 'phone', userId: String(STRANGER), code: otherCode, expiresAt: expect.any(String) },
  ]);

  const approved = await call('channels.approvePairing', { code });
  expect(approved.pairings.map((pairing) => pairing.code)).toEqual([otherCode]);
  api.userSays(FRIEND, 'now paired');
  await api.waitFor(replyTo(FRIEND, 'echo: now paired'));
  expect(fixture.agent.store.listRuns()[0]?.options.origin).toMatchObject({
    channel: 'phone',
    userId: String(FRIEND),
    role: 'user',
  });

  expect((await call('channels.rejectPairing', { code: otherCode })).pairings).toEqual([]);
  // A code refused, or never given, pairs no one.
  expect(await dispatch(handlers, 'channels.approvePairing', { code: otherCode })).toMatchObject({
    ok: false,
    error: { code: 'not_found' },
  });
  expect(await dispatch(handlers, 'channels.rejectPairing', { code: 'ZZZZ9999' })).toMatchObject({
    ok: false,
    error: { code: 'not_found' },
  });
  api.userSays(STRANGER, 'let me in');
  // A stranger again: a new code, not a run.
  await api.waitFor(
    (c) =>
      replyTo(STRANGER, /Pairing code: ([A-Z0-9]{8})/)(c) &&
      !String(c.body.text).includes(otherCode),
  );
  expect(fixture.agent.store.listRuns()).toHaveLength(1);
});

it('without channels served here, every declared channel reads as not served', async () => {
  const fixture = await channelAgent({
    channels: [
      {
        name: 'nightly',
        type: 'cron',
        transport: 'polling',
        auth: { secret_ref: 'unused' },
        trigger: { schedule: '0 3 * * *' },
        'x-pincer': { prompt: 'tidy up' },
      },
    ],
  });
  const assistant = await assistantOver(fixture.agent);
  cleanups.push(async () => {
    await assistant.close();
    await fixture.close();
  });
  expect(assistant.channels.held()).toEqual({ served: false, paused: false, held: [] });
  expect(assistant.channels.list()).toMatchObject({
    served: false,
    channels: [{ name: 'nightly', type: 'cron', state: 'not-served' }],
    pairings: [],
  });
});
