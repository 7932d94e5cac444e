import { expect, it } from 'vitest';
import { defaultThreads, physicalCores, threadsFor } from '../../../src/main/core/local/runtime.js';

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
