/** How the Runs view names where a background run came from. */
import { expect, it } from 'vitest';
import { formatOrigin } from '../../src/shared/format.js';

it('names the channel, the chat when it is not the sender, the sender and their role', () => {
  expect(
    formatOrigin({ channel: 'phone', type: 'telegram', userId: '42', chatId: '42', role: 'admin' }),
  ).toBe('phone (telegram) · user 42 (admin)');
  expect(
    formatOrigin({
      channel: 'team',
      type: 'telegram',
      userId: 'alice',
      chatId: '-100',
      role: 'user',
    }),
  ).toBe('team (telegram) · chat -100 · user alice (user)');
  expect(formatOrigin({ channel: 'hook', type: 'webhook' })).toBe('hook (webhook)');
});

it('names a schedule by its channel and expression', () => {
  expect(formatOrigin({ channel: 'nightly', type: 'cron', schedule: '0 3 * * *' })).toBe(
    'schedule nightly (0 3 * * *)',
  );
});

it('names a queue by its channel and subject, and the message by its place in the stream', () => {
  expect(
    formatOrigin({ channel: 'jobs', type: 'queue', queue: 'agent.tasks', message: 'JOBS/12' }),
  ).toBe('queue jobs (agent.tasks) · message JOBS/12');
});
