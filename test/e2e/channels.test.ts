/**
 * The background assistant in Chromium through the real gateway: a Telegram channel against the
 * suite's Bot API server on 127.0.0.1, served on the assistant's agent as the desktop app serves
 * it (startBackgroundChannels, connected to the assistant). Settings → Channels shows it
 * running; an unknown user's pairing code appears there and approving it lets that user chat;
 * the run that chat started shows its origin in the Runs view; a message sent while paused is
 * listed in the status bar as held, and runs on resume.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Assistant, assistantOver } from '../../src/main/core/assistant/index.js';
import { AgentActivity } from '../../src/main/core/desktop/activity.js';
import {
  type BackgroundChannels,
  startBackgroundChannels,
} from '../../src/main/core/desktop/background.js';
import { FakeBotApi, type SentCall } from '../fixtures/bot-api-server.js';
import { type BrowserApp, browserSkipReason, openBrowserApp } from '../support/browser-app.js';
import { type ChannelAgent, channelAgent } from '../support/channel-agent.js';

const skipReason = browserSkipReason('the channels suite');

const FRIEND = 4242;

const replyTo = (chat: number, text: string | RegExp) => (call: SentCall) =>
  call.method === 'sendMessage' &&
  String(call.body.chat_id) === String(chat) &&
  (typeof text === 'string' ? call.body.text === text : text.test(String(call.body.text)));

describe.skipIf(skipReason !== null)('channels in the browser', () => {
  let api: FakeBotApi;
  let fixture: ChannelAgent;
  let assistant: Assistant;
  let background: BackgroundChannels;
  let disconnect: () => void;
  let activity: AgentActivity;
  let app: BrowserApp;
  let page: Page;

  beforeAll(async () => {
    api = new FakeBotApi();
    const apiRoot = await api.start();
    fixture = await channelAgent({
      channels: [
        {
          name: 'phone',
          type: 'telegram',
          transport: 'polling',
          auth: { secret_ref: 'TELEGRAM_TOKEN' },
          access_control: { mode: 'pairing', pairing: { code_expiry_minutes: 30, max_pending: 3 } },
          'x-pincer': { api_root: apiRoot },
        },
      ],
    });
    await fixture.agent.secrets.set('TELEGRAM_TOKEN', api.token);
    assistant = await assistantOver(fixture.agent);
    activity = new AgentActivity();
    background = await startBackgroundChannels(fixture.agent, activity);
    if (!background.live) throw new Error('the channels were not served here');
    disconnect = assistant.channels.connect(background.live);
    app = await openBrowserApp({ assistant });
    ({ page } = app);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    disconnect?.();
    await background?.stop();
    await assistant?.close();
    await fixture?.close();
    await api?.close();
  });

  it('Settings → Channels: running; a pairing code approved there lets that user chat', async () => {
    await page.getByRole('tab', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Channels' }).click();
    const phone = page.getByRole('listitem', { name: 'Channel phone' });
    await expect.poll(() => phone.getByRole('status').textContent()).toBe('running');
    expect(await phone.textContent()).toContain('telegram');
    await page.getByText('No pairing codes are waiting.').waitFor();

    api.userSays(FRIEND, 'hello?');
    const offer = await api.waitFor(replyTo(FRIEND, /Pairing code: ([A-Z0-9]{8})/));
    const code = /Pairing code: ([A-Z0-9]{8})/.exec(String(offer.body.text))?.[1] as string;
    const request = page.getByRole('listitem', { name: `Pairing ${code}` });
    await request.waitFor({ timeout: 30_000 });
    expect(await request.textContent()).toContain(`user ${FRIEND} on phone`);
    await request.getByRole('button', { name: 'Approve' }).click();
    await page.getByText(`Paired: user ${FRIEND} on phone.`).waitFor();
    await expect.poll(() => request.count()).toBe(0);

    api.userSays(FRIEND, 'now we talk');
    await api.waitFor(replyTo(FRIEND, 'echo: now we talk'));
    await expect
      .poll(() => phone.textContent(), { timeout: 30_000 })
      .toMatch(/last message .* 1 run\b/);
  }, 90_000);

  it('the Runs view shows where a channel run came from', async () => {
    await page.getByRole('tab', { name: 'Runs' }).click();
    const row = page.locator('.run-row', { hasText: 'now we talk' });
    await row.waitFor({ timeout: 30_000 });
    expect(await row.getByTestId('run-origin').textContent()).toBe(
      `phone (telegram) · user ${FRIEND} (user)`,
    );
    await row.click();
    await expect
      .poll(() => page.getByTestId('run-detail-origin').textContent())
      .toBe(`phone (telegram) · user ${FRIEND} (user)`);
  });

  it('the status bar lists what the pause holds; resuming runs it', async () => {
    expect(await page.getByTestId('status-held').count()).toBe(0);
    activity.setPaused(true);
    const held = page.getByTestId('status-held');
    await expect.poll(() => held.textContent()).toContain('0 held while paused');
    api.userSays(FRIEND, 'while you rest');
    await expect.poll(() => held.textContent()).toContain('1 held while paused');
    await held.click();
    const list = page.getByRole('dialog', { name: 'Held while paused' });
    await expect.poll(() => list.textContent()).toContain(`phone · ${FRIEND}`);
    expect(await list.textContent()).toContain('while you rest');
    expect(api.messagesTo(FRIEND)).not.toContain('echo: while you rest');

    activity.setPaused(false);
    await api.waitFor(replyTo(FRIEND, 'echo: while you rest'));
    await expect.poll(() => page.getByTestId('status-held').count()).toBe(0);
  });
});
