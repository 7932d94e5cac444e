/**
 * The desktop app in real Electron, driven by Playwright's `_electron`: launch, a hardened
 * window, send a message, approve a tool in the UI, close to the tray, reopen, quit. Runs
 * wherever an Electron binary is installed (and, on Linux, a display: xvfb-run works); skips
 * with the reason printed where not.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { type ElectronApplication, _electron as electron, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findElectronBinary } from '../../src/main/core/doctor/checks.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const builtMain = path.join(repoRoot, 'out/main/index.js');
const scriptedMain = path.join(repoRoot, 'out/main/e2e.js');
const binary = await findElectronBinary(repoRoot);

function skipReason(): string | null {
  if (!binary) {
    return 'no Electron binary is installed here (it is downloaded on first launch, which this machine cannot do); the renderer suite covers the UI in Chromium';
  }
  if (!existsSync(builtMain) || !existsSync(path.join(repoRoot, 'out/renderer/index.html'))) {
    return 'the app is not built: run npm run build';
  }
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    return 'no display: run the suite under xvfb-run';
  }
  return null;
}
const reason = skipReason();
if (reason) console.warn(`[e2e] skipping the Electron suite: ${reason}`);

/** `entry`: an app directory (its package.json names the main) or a main script. */
async function launch(entry: string, home: string): Promise<ElectronApplication> {
  return electron.launch({
    executablePath: binary ?? '',
    args: [entry, ...(process.env.CI ? ['--no-sandbox'] : [])],
    env: { ...process.env, PINCER_HOME: home, PINCER_KEYCHAIN: 'off' },
  });
}

describe.skipIf(reason !== null)('desktop app in Electron', () => {
  let home = '';
  beforeAll(async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'pincer-electron-'));
    await build({
      entryPoints: [path.join(import.meta.dirname, 'electron-main.ts')],
      outfile: scriptedMain,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'warning',
    });
  });
  afterAll(async () => {
    if (home) await rm(home, { recursive: true, force: true });
    await rm(scriptedMain, { force: true });
  });

  it('opens one hardened window that reaches the core through the preload', async () => {
    // The repository as the app (package.json's main): app.getAppPath() is then the repo root,
    // where resources/ and models/catalog.json are, as inside a packaged app.asar.
    const app = await launch(repoRoot, path.join(home, 'real'));
    try {
      const window = await app.firstWindow();
      await expect.poll(() => window.getByTestId('connection').textContent()).toMatch(/^connected/);
      // Sandboxed and isolated: no Node in the page, and the bridge exposes only the contract.
      const page = await window.evaluate(() => ({
        require: typeof (globalThis as { require?: unknown }).require,
        process: typeof (globalThis as { process?: unknown }).process,
        bridge: Object.keys((globalThis as { pincer?: object }).pincer ?? {}).sort(),
      }));
      expect(page.require).toBe('undefined');
      expect(page.process).toBe('undefined');
      expect(page.bridge).toContain('invoke');
      // Navigation away from the app is refused.
      await window.evaluate(() => {
        location.href = 'https://example.org/';
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(window.url()).toMatch(/^file:|^http:\/\/localhost/);
    } finally {
      await app.close();
    }
  });

  it('send a message, approve in the UI, close to the tray, reopen, quit', async () => {
    const dataDir = path.join(home, 'scripted');
    const app = await launch(scriptedMain, dataDir);
    try {
      const window: Page = await app.firstWindow();
      const composer = window.getByRole('textbox', { name: 'Message' });
      const lastAssistant = () => window.getByTestId('assistant-message').last();

      await composer.fill('hello there');
      await composer.press('Enter');
      await expect.poll(() => lastAssistant().textContent()).toContain('from Pincer');

      await composer.fill('write a note');
      await composer.press('Enter');
      const card = window
        .getByRole('complementary', { name: 'Approvals' })
        .getByTestId('approval-card');
      await card.waitFor();
      await card
        .getByRole('button', { name: /^Approve/ })
        .first()
        .click();
      await expect
        .poll(() => lastAssistant().getByTestId('tool-status').textContent())
        .toBe('Done');

      // Closing the window keeps Pincer running in the tray, and remembers the notice.
      await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows()[0]?.close());
      await expect
        .poll(() =>
          app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows()[0]?.isVisible()),
        )
        .toBe(false);
      expect(await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length)).toBe(
        1,
      );
      await expect
        .poll(async () => JSON.parse(await readFile(path.join(dataDir, 'desktop.json'), 'utf8')))
        .toMatchObject({ closeToTrayNoticeShown: true });

      // A second launch (what 'second-instance' delivers) brings the same window back.
      await app.evaluate(({ app: electronApp }) => {
        electronApp.emit('second-instance', {}, [], '/');
      });
      await expect
        .poll(() =>
          app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows()[0]?.isVisible()),
        )
        .toBe(true);
      expect(await lastAssistant().textContent()).toContain('the tool said');
    } finally {
      await app.close();
    }
  });
});
