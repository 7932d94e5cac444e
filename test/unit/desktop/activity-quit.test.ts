import { describe, expect, it } from 'vitest';
import {
  AgentActivity,
  AgentUnavailableError,
  type TrackedRun,
} from '../../../src/main/core/desktop/activity.js';
import { QuitCoordinator } from '../../../src/main/core/desktop/quit.js';

/** A run that finishes when told to, or when cancelled (as AgentRuntime runs do). */
function fakeRun(runId: string) {
  let finish: (outcome: string) => void = () => {};
  const done = new Promise<string>((resolve) => {
    finish = resolve;
  });
  const run: TrackedRun & { finish: typeof finish; cancelled: boolean } = {
    runId,
    done,
    cancelled: false,
    finish: (outcome) => finish(outcome),
    cancel: () => {
      run.cancelled = true;
      finish('cancelled');
    },
  };
  return run;
}

describe('agent activity', () => {
  it('counts runs in flight and forgets them when they settle, successful or not', async () => {
    const activity = new AgentActivity();
    let changes = 0;
    activity.onChange(() => changes++);
    const a = activity.track(fakeRun('r1'));
    const failing = { runId: 'r2', done: Promise.reject(new Error('boom')), cancel() {} };
    activity.track(failing);
    expect(activity.activeRuns).toBe(2);
    a.finish('completed');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(activity.activeRuns).toBe(0);
    expect(changes).toBe(4);
  });

  it('paused: background runs are refused with a clear error, a person at the UI is still answered', () => {
    const activity = new AgentActivity();
    activity.setPaused(true);
    expect(() => activity.admit('background')).toThrowError(/paused/);
    expect(() => activity.admit('user')).not.toThrow();
    activity.setPaused(false);
    expect(() => activity.admit('background')).not.toThrow();
  });

  it('drain: runs that finish in time are drained; nothing new is admitted meanwhile', async () => {
    const activity = new AgentActivity();
    const run = activity.track(fakeRun('r1'));
    const drained = activity.drain(1_000);
    expect(() => activity.admit('user')).toThrowError(AgentUnavailableError);
    run.finish('completed');
    expect(await drained).toEqual({ drained: true, finished: 1, cancelled: 0 });
    expect(run.cancelled).toBe(false);
  });

  it('drain: runs still going at the deadline are cancelled', async () => {
    const activity = new AgentActivity();
    const quick = activity.track(fakeRun('quick'));
    const slow = activity.track(fakeRun('slow'));
    const drained = activity.drain(20);
    quick.finish('completed');
    expect(await drained).toEqual({ drained: false, finished: 1, cancelled: 1 });
    expect(slow.cancelled).toBe(true);
    expect(activity.activeRuns).toBe(0);
  });
});

describe('graceful quit', () => {
  it('holds the first quit, drains, cleans up, then quits for real (READY -> STOPPING -> STOPPED)', async () => {
    const activity = new AgentActivity();
    const run = activity.track(fakeRun('r1'));
    const order: string[] = [];
    let quitAgain: () => void = () => {};
    const quitCalled = new Promise<void>((resolve) => {
      quitAgain = resolve;
    });
    const coordinator = new QuitCoordinator({
      activity,
      drainTimeoutMs: 1_000,
      quit: () => {
        order.push('quit');
        quitAgain();
      },
      cleanup: () => {
        order.push('cleanup');
      },
      onReport: (report) => order.push(`drained=${report.drained}`),
    });
    expect(coordinator.state).toBe('READY');
    expect(coordinator.beforeQuit()).toBe('hold');
    expect(coordinator.state).toBe('STOPPING');
    expect(coordinator.quitting).toBe(true);
    expect(coordinator.beforeQuit()).toBe('hold'); // a second Quit click while draining
    run.finish('completed');
    await quitCalled;
    expect(order).toEqual(['drained=true', 'cleanup', 'quit']);
    expect(coordinator.state).toBe('STOPPED');
    expect(coordinator.beforeQuit()).toBe('proceed');
  });

  it('a failing cleanup is reported and the app still quits', async () => {
    const errors: unknown[] = [];
    let quits = 0;
    const coordinator = new QuitCoordinator({
      activity: new AgentActivity(),
      quit: () => quits++,
      cleanup: () => {
        throw new Error('db busy');
      },
      onError: (error) => errors.push(error),
    });
    coordinator.beforeQuit();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(errors).toEqual([new Error('db busy')]);
    expect(quits).toBe(1);
    expect(coordinator.beforeQuit()).toBe('proceed');
  });
});
