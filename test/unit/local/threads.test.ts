import { describe, expect, it } from 'vitest';
import {
  AdaptiveThreads,
  type CpuSample,
  defaultThreads,
  physicalCores,
  threadsFor,
} from '../../../src/main/core/local/runtime.js';

it('uses physical cores, not hyper-threads, and leaves one for the desktop from 4 up', () => {
  expect(threadsFor({ logical: 16, physical: 8, load: 0 })).toBe(7);
  expect(threadsFor({ logical: 4, physical: 4, load: 0.2 })).toBe(3);
  expect(threadsFor({ logical: 2, physical: 2, load: 0 })).toBe(2);
  expect(threadsFor({ logical: 8, load: 0 })).toBe(7);
});

it('takes no more threads than the load leaves idle, and always at least one', () => {
  expect(threadsFor({ logical: 2, physical: 2, load: 1.2 })).toBe(1);
  expect(threadsFor({ logical: 2, physical: 2, load: 7 })).toBe(1);
  expect(threadsFor({ logical: 16, physical: 8, load: 12.5 })).toBe(3);
  expect(threadsFor({ logical: 1, load: 0 })).toBe(1);
});

it('reads this machine: at least one thread, no more than its CPUs', () => {
  const threads = defaultThreads();
  expect(threads).toBeGreaterThanOrEqual(1);
  expect(threads).toBeLessThanOrEqual(Math.max(1, physicalCores() ?? Number.POSITIVE_INFINITY));
});

describe('threads chosen again before each evaluation', () => {
  /** A machine whose CPU time the test advances: others' work and this process's own. */
  function machine() {
    const now: CpuSample = { at: 0, machineBusyMs: 0, ownMs: 0 };
    return {
      sample: () => ({ ...now }),
      run(ms: number, others: number, own: number) {
        now.at += ms;
        now.machineBusyMs += (others + own) * ms;
        now.ownMs += own * ms;
      },
    };
  }
  const cpus = { logical: 4, physical: 4 };

  it('starts from the load average, then follows what other programs use', () => {
    const m = machine();
    const threads = new AdaptiveThreads(cpus, m.sample, () => 0.1);
    expect(threads.ceiling).toBe(3);
    expect(threads.next()).toBe(3);
    m.run(2_000, 2.2, 0); // a build starts: two CPUs busy with it
    expect(threads.next()).toBe(1);
    m.run(2_000, 0, 0); // and ends
    expect(threads.next()).toBe(3);
  });

  it("never counts the model's own threads as load", () => {
    const m = machine();
    const threads = new AdaptiveThreads(cpus, m.sample, () => 4);
    expect(threads.next()).toBe(1); // the load average, on the first choice
    m.run(5_000, 0, 3); // three threads of ours, flat out
    expect(threads.next()).toBe(3);
  });

  it('ignores a window too short to say anything, and one over a minute old', () => {
    const m = machine();
    let average = 0;
    const threads = new AdaptiveThreads(cpus, m.sample, () => average);
    threads.next();
    m.run(50, 3, 0);
    expect(threads.next()).toBe(3); // 50 ms: the load average (0) decides
    average = 2;
    m.run(120_000, 0, 0);
    expect(threads.next()).toBe(2);
  });
});
