import { defineConfig } from 'vitest/config';

/**
 * `expect.poll` waits for a condition; its default of one second raced the clock on a loaded
 * machine (a sandboxed tool approved in the UI takes seconds to start its worker there).
 */
const POLL = { timeout: 30_000, interval: 50 };

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'test/unit/**/*.test.ts',
            'test/integration/**/*.test.ts',
            'test/integration/**/*.test.tsx',
          ],
          // Timeouts catch hangs, not slowness: on a busy 2-core CI machine (load 7 and more) a
          // test that starts several CLI processes, sandbox workers or real inference can take
          // minutes, and a hook that generates a model file more than vitest's default 10 s.
          testTimeout: 180_000,
          hookTimeout: 180_000,
          expect: { poll: POLL },
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          expect: { poll: POLL },
          // One browser at a time on a 2-core machine.
          fileParallelism: false,
        },
      },
      {
        test: {
          // Every surface started from the built artifacts (dist/cli.js, out/) as a user would.
          name: 'product',
          include: ['test/product/**/*.test.ts'],
          globalSetup: ['test/product/support/artifacts.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
          expect: { poll: POLL },
        },
      },
    ],
  },
});
