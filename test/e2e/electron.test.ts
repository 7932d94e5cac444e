import path from 'node:path';
import { _electron as electron } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { findElectronBinary } from '../../src/main/core/doctor/checks.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const binary = await findElectronBinary(repoRoot);
if (!binary) {
  console.warn(
    '[e2e] skipping the Electron suite: no Electron binary is installed here (it is downloaded ' +
      'on first launch, which this machine cannot do). The renderer suite covers the UI in Chromium.',
  );
}

describe.skipIf(!binary)('desktop app in Electron', () => {
  it('opens one hardened window that reaches the core through the preload', async () => {
    const app = await electron.launch({
      executablePath: binary ?? '',
      args: [path.join(repoRoot, 'out/main/index.js')],
      env: { ...process.env, PINCER_HOME: path.join(repoRoot, '.pincer-test-electron') },
    });
    try {
      const window = await app.firstWindow();
      await expect.poll(() => window.getByTestId('connection').textContent()).toMatch(/^connected/);
      // Sandboxed and isolated: no Node in the page, and the bridge exposes only `invoke`.
      const page = await window.evaluate(() => ({
        require: typeof (globalThis as { require?: unknown }).require,
        process: typeof (globalThis as { process?: unknown }).process,
        bridge: Object.keys((globalThis as { pincer?: object }).pincer ?? {}),
      }));
      expect(page).toEqual({ require: 'undefined', process: 'undefined', bridge: ['invoke'] });
    } finally {
      await app.close();
    }
  });
});
