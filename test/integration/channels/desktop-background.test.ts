/**
 * The desktop app's channels (core side of the glue): started on the app's agent under the data
 * dir's instance lock, paused with the tray, and left to a daemon that already serves the dir.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import {
  SIGNATURE_HEADER,
  signWebhook,
  TIMESTAMP_HEADER,
} from '../../../src/main/core/channels/webhook.js';
import { lockFileOf, lockHolder } from '../../../src/main/core/daemon/instance-lock.js';
import { AgentActivity } from '../../../src/main/core/desktop/activity.js';
import { startBackgroundChannels } from '../../../src/main/core/desktop/background.js';
import { type ChannelAgent, channelAgent } from '../../support/channel-agent.js';

let fixture: ChannelAgent | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const hook = {
  name: 'hook',
  type: 'webhook',
  transport: 'webhook',
  auth: { secret_ref: 'HOOK_SECRET' },
  'x-pincer': { listen: '127.0.0.1:0' },
};

it('serves the channels under the instance lock and holds new work while the tray pauses', async () => {
  fixture = await channelAgent({ channels: [hook] });
  await fixture.agent.secrets.set('HOOK_SECRET', 'desktop-secret');
  const activity = new AgentActivity();
  const background = await startBackgroundChannels(fixture.agent, activity);
  expect(lockHolder(fixture.dataDir)).toBe(process.pid);
  const [status] = background.channels?.statuses() ?? [];
  expect(status).toMatchObject({ name: 'hook', state: 'running' });

  activity.setPaused(true);
  const post = async (text: string) => {
    const body = JSON.stringify({ text });
    const timestamp = String(Math.floor(Date.now() / 1000));
    return fetch(status?.detail.url as string, {
      method: 'POST',
      body,
      headers: {
        [TIMESTAMP_HEADER]: timestamp,
        [SIGNATURE_HEADER]: signWebhook('desktop-secret', timestamp, body),
      },
    });
  };
  // Paused: a request that waits on its response is told to retry; nothing runs.
  expect((await post('while paused')).status).toBe(503);
  expect(fixture.agent.store.listRuns()).toEqual([]);
  activity.setPaused(false);
  expect(await (await post('resumed')).json()).toMatchObject({ reply: 'echo: resumed' });
  await background.stop();
  expect(lockHolder(fixture.dataDir)).toBeUndefined();
});

it('a channel without its secret reports it and takes nothing', async () => {
  fixture = await channelAgent({ channels: [hook] });
  const background = await startBackgroundChannels(fixture.agent, new AgentActivity());
  expect(background.channels?.statuses()[0]).toMatchObject({
    state: 'failed',
    lastError: expect.stringContaining('HOOK_SECRET'),
  });
  await background.stop();
});

it('leaves the channels to a daemon that already serves the data dir', async () => {
  fixture = await channelAgent({ channels: [hook] });
  mkdirSync(path.dirname(lockFileOf(fixture.dataDir)), { recursive: true });
  // The test runner's parent process stands in for a live daemon.
  writeFileSync(lockFileOf(fixture.dataDir), `${process.ppid}\n`);
  const background = await startBackgroundChannels(fixture.agent, new AgentActivity());
  expect(background.channels).toBeUndefined();
  await background.stop();
  expect(lockHolder(fixture.dataDir)).toBe(process.ppid);
});
