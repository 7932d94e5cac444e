/**
 * The cron channel on a real agent (scripted model): schedules evaluated on a clock the test
 * moves, overlap skip and queue observed while a run waits on a real approval, missed firings
 * reported after a sleep, the heartbeat's prompt read through the workspace confinement, and one
 * real one-second schedule.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { CronChannel } from '../../../src/main/core/channels/cron.js';
import type { RunHandle } from '../../../src/main/core/runtime/runtime.js';
import type { RunOrigin } from '../../../src/main/core/terms.js';
import {
  approvalTimeout,
  type ChannelAgent,
  channelAgent,
  ManualClock,
} from '../../support/channel-agent.js';

const START = Date.parse('2026-03-02T08:00:30Z');
let fixture: ChannelAgent | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

function cron(name: string, trigger: Record<string, unknown>, pincer: Record<string, unknown>) {
  return {
    name,
    type: 'cron',
    transport: 'polling',
    auth: { secret_ref: 'unused' },
    trigger,
    'x-pincer': pincer,
  };
}

function runsOf(f: ChannelAgent): Array<{ handle: RunHandle; origin: RunOrigin }> {
  const runs: Array<{ handle: RunHandle; origin: RunOrigin }> = [];
  f.hub.onRun((handle, origin) => runs.push({ handle, origin }));
  return runs;
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

it('runs the declared prompt at each firing, recording the schedule as the run origin', async () => {
  fixture = await channelAgent({
    channels: [cron('brief', { schedule: '0 9 * * *' }, { prompt: 'morning brief' })],
  });
  const clock = new ManualClock(START);
  const runs = runsOf(fixture);
  const channel = new CronChannel(fixture.decl('brief'), fixture.hub, {
    workspace: fixture.agent.governance.workspace,
    clock,
  });
  await channel.start();
  expect(channel.status().detail.next).toBe('2026-03-02T09:00:00.000Z');
  clock.advance(59 * 60_000);
  expect(runs).toHaveLength(0);
  clock.advance(60_000);
  await until(() => runs.length === 1);
  const result = await runs[0]?.handle.done;
  expect(result?.outcome).toBe('completed');
  expect(fixture.agent.store.getRun(result?.runId as never)?.options.origin).toEqual({
    channel: 'brief',
    type: 'cron',
    schedule: '0 9 * * *',
  });
  expect(fixture.agent.governance.audit.list({ runId: result?.runId })[0]).toMatchObject({
    event: 'run_started',
    detail: { origin: { channel: 'brief', schedule: '0 9 * * *' } },
  });
  expect(channel.status()).toMatchObject({ state: 'running', runs: 1, missed: 0 });
  expect(channel.status().detail.next).toBe('2026-03-03T09:00:00.000Z');
  await channel.stop();
});

it('overlap skip: a firing while the earlier run waits for approval is skipped; the approval is never given for it', async () => {
  fixture = await channelAgent({
    channels: [cron('writer', { schedule: '* * * * *' }, { prompt: 'write the log' })],
  });
  const clock = new ManualClock(START);
  const runs = runsOf(fixture);
  const channel = new CronChannel(fixture.decl('writer'), fixture.hub, {
    workspace: fixture.agent.governance.workspace,
    clock,
  });
  await channel.start();
  const broker = fixture.agent.governance.broker;
  clock.advance(30_000);
  await until(() => broker.pending().length === 1);
  clock.advance(60_000);
  clock.advance(60_000);
  expect(channel.status().detail).toMatchObject({ running: '1', skipped: '2', queued: '0' });
  expect(runs).toHaveLength(1);
  const [pending] = broker.pending();
  expect(broker.resolve(pending?.id as string, 'deny', 'test')).toBe('resolved');
  expect((await runs[0]?.handle.done)?.outcome).toBe('completed');
  await channel.idle();
  await channel.stop();
});

it('overlap queue: the firing waits for the running one and then runs', async () => {
  fixture = await channelAgent({
    channels: [
      cron('writer', { schedule: '* * * * *', overlap_policy: 'queue' }, { prompt: 'write it' }),
    ],
  });
  const clock = new ManualClock(START);
  const runs = runsOf(fixture);
  const channel = new CronChannel(fixture.decl('writer'), fixture.hub, {
    workspace: fixture.agent.governance.workspace,
    clock,
  });
  await channel.start();
  const broker = fixture.agent.governance.broker;
  clock.advance(30_000);
  await until(() => broker.pending().length === 1);
  clock.advance(60_000);
  expect(channel.status().detail).toMatchObject({ running: '1', queued: '1', skipped: '0' });
  expect(runs).toHaveLength(1);
  broker.resolve(broker.pending()[0]?.id as string, 'deny', 'test');
  await until(() => runs.length === 2);
  await until(() => broker.pending().length === 1);
  expect(broker.pending()[0]?.runId).toBe(runs[1]?.handle.runId);
  broker.resolve(broker.pending()[0]?.id as string, 'deny', 'test');
  await channel.idle();
  await channel.stop();
});

it('a scheduled run that needs approval is denied by the timeout even where the rule would allow', async () => {
  fixture = await channelAgent({
    channels: [cron('writer', { schedule: '* * * * *' }, { prompt: 'write now' })],
    edit: approvalTimeout(1, 'allow'),
  });
  const clock = new ManualClock(START);
  const runs = runsOf(fixture);
  const channel = new CronChannel(fixture.decl('writer'), fixture.hub, {
    workspace: fixture.agent.governance.workspace,
    clock,
  });
  await channel.start();
  clock.advance(30_000);
  await until(() => runs.length === 1);
  const result = await runs[0]?.handle.done;
  const audit = fixture.agent.governance.audit.list({ runId: result?.runId });
  expect(audit.find((row) => row.event === 'approval_resolved')).toMatchObject({
    decision: 'denied',
    approvalBy: 'timeout',
  });
  expect(fixture.agent.store.toolCalls(result?.runId as never)[0]?.result).toContain(
    'approval_timeout',
  );
  const written = path.join(fixture.agent.governance.workspace, 'notes', 'from-channel.txt');
  await expect(import('node:fs/promises').then((fs) => fs.stat(written))).rejects.toThrow();
  await channel.stop();
}, 20_000);

it('firings missed while the machine slept are reported, not replayed in a burst', async () => {
  fixture = await channelAgent({
    channels: [cron('hourly', { schedule: '0 * * * *' }, { prompt: 'hourly check' })],
  });
  const clock = new ManualClock(START);
  const runs = runsOf(fixture);
  const channel = new CronChannel(fixture.decl('hourly'), fixture.hub, {
    workspace: fixture.agent.governance.workspace,
    clock,
  });
  await channel.start();
  clock.sleep(3 * 60 * 60_000 + 10 * 60_000);
  expect(runs).toHaveLength(0);
  expect(channel.status()).toMatchObject({ missed: 3 });
  expect(channel.status().lastError).toContain('missed 3 firing(s)');
  expect(channel.status().detail.next).toBe('2026-03-02T12:00:00.000Z');
  clock.advance(50 * 60_000);
  await until(() => runs.length === 1);
  await runs[0]?.handle.done;
  await channel.stop();
});

it('a heartbeat reads its checklist from the workspace at each firing, and not through a link out', async () => {
  fixture = await channelAgent({
    channels: [cron('heartbeat', { schedule: '*/30 * * * *' }, { prompt_file: 'HEARTBEAT.md' })],
  });
  const workspace = fixture.agent.governance.workspace;
  await writeFile(path.join(workspace, 'HEARTBEAT.md'), '- check the inbox\n');
  const clock = new ManualClock(START);
  const runs = runsOf(fixture);
  const channel = new CronChannel(fixture.decl('heartbeat'), fixture.hub, { workspace, clock });
  await channel.start();
  clock.advance(30 * 60_000);
  await until(() => runs.length === 1);
  const first = await runs[0]?.handle.done;
  expect(fixture.agent.store.getRun(first?.runId as never)?.goal).toBe('- check the inbox\n');

  // The workspace is hostile input: a link to a file outside is refused, not read.
  const outside = path.join(fixture.dataDir, 'outside.md');
  await writeFile(outside, 'secret outside the workspace');
  await mkdir(workspace, { recursive: true });
  const { rm } = await import('node:fs/promises');
  await rm(path.join(workspace, 'HEARTBEAT.md'));
  await symlink(outside, path.join(workspace, 'HEARTBEAT.md'));
  clock.advance(30 * 60_000);
  await channel.idle();
  expect(runs).toHaveLength(1);
  expect(channel.status().lastError).toMatch(/HEARTBEAT\.md/);
  await channel.stop();
});

it('a cron channel without a task or with a bad schedule does not start and says why', async () => {
  fixture = await channelAgent({
    channels: [
      cron('empty', { schedule: '0 9 * * *' }, {}),
      cron('bad', { schedule: 'every morning' }, { prompt: 'x' }),
    ],
  });
  const options = { workspace: os.tmpdir() };
  const empty = new CronChannel(fixture.decl('empty'), fixture.hub, options);
  await expect(empty.start()).rejects.toMatchObject({ code: 'not_configured' });
  expect(empty.status()).toMatchObject({
    state: 'failed',
    lastError: expect.stringContaining('x-pincer.prompt'),
  });
  const bad = new CronChannel(fixture.decl('bad'), fixture.hub, options);
  await expect(bad.start()).rejects.toMatchObject({ code: 'not_configured' });
});

it('a real one-second schedule fires on the system clock', async () => {
  fixture = await channelAgent({
    channels: [cron('tick', { schedule: '* * * * * *' }, { prompt: 'tick' })],
  });
  const runs = runsOf(fixture);
  const channel = new CronChannel(fixture.decl('tick'), fixture.hub, {
    workspace: fixture.agent.governance.workspace,
  });
  await channel.start();
  await until(() => runs.length >= 1);
  await channel.stop();
  expect((await runs[0]?.handle.done)?.outcome).toBe('completed');
  await channel.idle();
}, 30_000);

it('while paused a firing is held and shown, and runs once the agent is resumed', async () => {
  fixture = await channelAgent({
    channels: [cron('brief', { schedule: '0 9 * * *' }, { prompt: 'morning brief' })],
  });
  const clock = new ManualClock(START);
  const runs = runsOf(fixture);
  const channel = new CronChannel(fixture.decl('brief'), fixture.hub, {
    workspace: fixture.agent.governance.workspace,
    clock,
  });
  await channel.start();
  fixture.hub.setPaused(true);
  clock.advance(60 * 60_000);
  await until(() => fixture?.hub.heldWork().length === 1);
  expect(fixture.hub.heldWork()[0]).toMatchObject({ channel: 'brief', from: '0 9 * * *' });
  expect(runs).toHaveLength(0);
  fixture.hub.setPaused(false);
  await until(() => runs.length === 1);
  expect((await runs[0]?.handle.done)?.outcome).toBe('completed');
  await channel.stop();
});
