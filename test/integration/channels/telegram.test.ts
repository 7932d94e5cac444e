/**
 * The Telegram channel (grammY, long polling) against a Bot API server on 127.0.0.1, on a real
 * agent with the scripted model: allowlisted chats, strangers, pairing, roles, approvals answered
 * by button, in the app, or refused to a non-admin; long and unparseable Markdown replies.
 */

import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { TelegramChannel } from '../../../src/main/core/channels/telegram.js';
import { FakeBotApi, type SentCall } from '../../fixtures/bot-api-server.js';
import { approvalTimeout, type ChannelAgent, channelAgent } from '../../support/channel-agent.js';

const OWNER = 111;
const FRIEND = 222;
const VIEWER = 333;
let fixture: ChannelAgent | undefined;
let api: FakeBotApi | undefined;
let channel: TelegramChannel | undefined;
afterEach(async () => {
  await channel?.stop();
  channel = undefined;
  await fixture?.close();
  fixture = undefined;
  await api?.close();
  api = undefined;
});

async function open(
  access: Record<string, unknown>,
  processing?: Record<string, unknown>,
  edit?: Parameters<typeof channelAgent>[0]['edit'],
) {
  api = new FakeBotApi();
  const apiRoot = await api.start();
  fixture = await channelAgent({
    channels: [
      {
        name: 'tg',
        type: 'telegram',
        transport: 'polling',
        auth: { secret_ref: 'TELEGRAM_TOKEN' },
        access_control: access,
        ...(processing ? { processing } : {}),
        'x-pincer': { api_root: apiRoot },
      },
    ],
    ...(edit ? { edit } : {}),
  });
  channel = new TelegramChannel(fixture.decl('tg'), fixture.hub, { token: api.token });
  await channel.start();
  return { api, fixture, channel };
}

const replyTo = (chat: number, text: string | RegExp) => (call: SentCall) =>
  call.method === 'sendMessage' &&
  String(call.body.chat_id) === String(chat) &&
  (typeof text === 'string' ? call.body.text === text : text.test(String(call.body.text)));

it('an allowlisted user chats: typing shown, the reply in their chat, one session per chat', async () => {
  const { api, fixture } = await open({ mode: 'allowlist', allowed_ids: [String(OWNER)] });
  api.userSays(OWNER, 'hello');
  await api.waitFor(replyTo(OWNER, 'echo: hello'));
  expect(api.sent.some((c) => c.method === 'sendChatAction' && c.body.action === 'typing')).toBe(
    true,
  );
  api.userSays(OWNER, 'again');
  await api.waitFor(replyTo(OWNER, 'echo: again'));
  const runs = fixture.agent.store.listRuns();
  expect(runs).toHaveLength(2);
  expect(new Set(runs.map((run) => run.sessionId)).size).toBe(1);
  expect(runs[0]?.options.origin).toEqual({
    channel: 'tg',
    type: 'telegram',
    userId: String(OWNER),
    chatId: String(OWNER),
    role: 'admin',
  });
});

it('a stranger on an allowlist channel gets no answer and starts no run', async () => {
  const { api, fixture } = await open({ mode: 'allowlist', allowed_ids: [String(OWNER)] });
  api.userSays(FRIEND, 'let me in');
  api.userSays(OWNER, 'ping');
  await api.waitFor(replyTo(OWNER, 'echo: ping'));
  expect(api.messagesTo(FRIEND)).toEqual([]);
  expect(fixture.agent.store.listRuns()).toHaveLength(1);
});

it('an unknown user gets a pairing code, is approved by the owner, then chats; pending codes are bounded', async () => {
  const { api, fixture } = await open({
    mode: 'pairing',
    pairing: { code_expiry_minutes: 30, max_pending: 2 },
  });
  api.userSays(FRIEND, 'hi');
  const offer = await api.waitFor(replyTo(FRIEND, /Pairing code: ([A-Z0-9]{8})/));
  const code = /Pairing code: ([A-Z0-9]{8})/.exec(String(offer.body.text))?.[1] as string;
  expect(fixture.agent.store.listRuns()).toEqual([]);
  // Asking again gives the same code, not a new pending entry.
  api.userSays(FRIEND, 'hi again');
  await api.waitFor((c) => replyTo(FRIEND, /Pairing code/)(c) && c !== offer);
  expect(fixture.hub.records.pending('tg')).toHaveLength(1);
  api.userSays(VIEWER, 'me too');
  await api.waitFor(replyTo(VIEWER, /Pairing code/));
  api.userSays(444, 'and me');
  api.userSays(OWNER, 'and the owner');
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(fixture.hub.records.pending('tg')).toHaveLength(2);

  // An expired code pairs no one; the valid one does (as `pincer channels pair CODE` does).
  const later = new Date(Date.now() + 31 * 60_000);
  expect(fixture.hub.records.pair(code, 'cli', later)).toEqual({ kind: 'expired' });
  expect(fixture.hub.records.pair(code.toLowerCase(), 'cli')).toEqual({
    kind: 'paired',
    channel: 'tg',
    userId: String(FRIEND),
  });
  api.userSays(FRIEND, 'now paired');
  await api.waitFor(replyTo(FRIEND, 'echo: now paired'));
  expect(fixture.agent.store.listRuns()[0]?.options.origin).toMatchObject({ role: 'user' });
});

it('a viewer cannot trigger a side effect: the tool is refused without asking anyone', async () => {
  const { api, fixture } = await open({
    mode: 'role-based',
    roles: [
      { id: String(OWNER), role: 'admin' },
      { id: String(VIEWER), role: 'viewer' },
    ],
  });
  api.userSays(VIEWER, 'write a note');
  await api.waitFor(replyTo(VIEWER, /not written/));
  expect(fixture.agent.governance.broker.pending()).toEqual([]);
  const run = fixture.agent.store.listRuns()[0];
  const decided = fixture.agent.governance.audit
    .list({ runId: run?.id })
    .find((row) => row.event === 'decided');
  expect(decided).toMatchObject({ decision: 'deny', rule: 'channel-role' });
  expect(api.messagesTo(OWNER)).toEqual([]);
});

it('an approval goes to the admin chat with buttons; a non-admin press is refused, the admin approves', async () => {
  const { api, fixture } = await open({
    mode: 'role-based',
    roles: [
      { id: String(OWNER), role: 'admin' },
      { id: String(FRIEND), role: 'user' },
    ],
  });
  api.userSays(FRIEND, 'write the report');
  const ask = await api.waitFor(replyTo(OWNER, /Approval needed for a run from tg \(user 222\)/));
  const buttons = (
    ask.body.reply_markup as { inline_keyboard: Array<Array<{ callback_data: string }>> }
  ).inline_keyboard[0];
  expect(buttons?.map((b) => b.callback_data.slice(-2))).toEqual([':y', ':n']);
  // No approval request goes to the user who is not an admin.
  expect(api.messagesTo(FRIEND).some((text) => text.includes('Approval needed'))).toBe(false);
  const messageId = 1; // the fake server does not check which message a button belongs to
  api.userPresses(FRIEND, messageId, buttons?.[0]?.callback_data as string);
  await api.waitFor(
    (c) => c.method === 'answerCallbackQuery' && /Only an admin/.test(String(c.body.text)),
  );
  expect(fixture.agent.governance.broker.pending()).toHaveLength(1);
  api.userPresses(OWNER, messageId, buttons?.[0]?.callback_data as string);
  await api.waitFor(replyTo(FRIEND, 'written'));
  await api.waitFor(
    (c) => c.method === 'editMessageText' && /Approved \(telegram:111\)/.test(String(c.body.text)),
  );
  const written = await readFile(
    path.join(fixture.agent.governance.workspace, 'notes', 'from-channel.txt'),
    'utf8',
  );
  expect(written).toBe('write the report');
});

it('an approval answered in the app marks the Telegram message answered', async () => {
  const { api, fixture } = await open({
    mode: 'role-based',
    roles: [{ id: String(OWNER), role: 'admin' }],
  });
  api.userSays(OWNER, 'write from the phone');
  await api.waitFor(replyTo(OWNER, /Approval needed/));
  const [pending] = fixture.agent.governance.broker.pending();
  expect(fixture.agent.governance.broker.resolve(pending?.id as string, 'deny', 'ui')).toBe(
    'resolved',
  );
  await api.waitFor((c) => c.method === 'editMessageText' && c.body.text === 'Denied (ui).');
  await api.waitFor(replyTo(OWNER, /not written/));
});

it('a long reply is split at the platform limit; Markdown Telegram cannot parse goes as plain text', async () => {
  const { api } = await open({ mode: 'allowlist', allowed_ids: [String(OWNER)] });
  api.userSays(OWNER, 'long');
  await api.waitFor(replyTo(OWNER, /Line 299 of a long answer/));
  const pieces = api.messagesTo(OWNER);
  expect(pieces.length).toBeGreaterThan(1);
  for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(4096);
  expect(pieces.join('\n')).toContain('Line 0 of a long answer.');

  api.userSays(OWNER, 'a * b');
  const plain = await api.waitFor(
    (c) => replyTo(OWNER, 'echo: a * b')(c) && c.body.parse_mode === undefined,
  );
  expect(plain).toBeDefined();
});

it('messages over max_message_length are refused with a sentence, and start no run', async () => {
  const { api, fixture } = await open(
    { mode: 'allowlist', allowed_ids: [String(OWNER)] },
    { max_message_length: 10 },
  );
  api.userSays(OWNER, 'this is far too long');
  await api.waitFor(replyTo(OWNER, /at most 10/));
  expect(fixture.agent.store.listRuns()).toEqual([]);
});

it('an approval nobody answers is denied even where the rule would allow at timeout', async () => {
  const { api, fixture } = await open(
    { mode: 'allowlist', allowed_ids: [String(OWNER)] },
    undefined,
    approvalTimeout(1, 'allow'),
  );
  api.userSays(OWNER, 'write while nobody watches');
  await api.waitFor(replyTo(OWNER, /not written/));
  const run = fixture.agent.store.listRuns()[0];
  expect(
    fixture.agent.governance.audit
      .list({ runId: run?.id })
      .find((row) => row.event === 'approval_resolved'),
  ).toMatchObject({ decision: 'denied', approvalBy: 'timeout' });
  expect(
    existsSync(path.join(fixture.agent.governance.workspace, 'notes', 'from-channel.txt')),
  ).toBe(false);
}, 30_000);
