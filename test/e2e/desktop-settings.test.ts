/**
 * Settings → Desktop in Chromium. Served as the desktop app serves it (the core's handlers with
 * the shell's preferences over a real settings file; a stand-in for Electron's global shortcut
 * registry, where one accelerator is owned by another application), a new shortcut is recorded
 * by pressing it, a taken one is refused with the reason and the old one kept, and the check
 * boxes are saved. Served by `pincer gateway` (no shell), the section says it belongs to the app.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DesktopPreferences, DesktopSettingsStore } from '../../src/main/core/desktop/index.js';
import {
  type Gateway,
  startAssistantGateway,
  startGateway,
} from '../../src/main/core/gateway/server.js';
import { createCoreHandlers } from '../../src/main/core/ipc/index.js';
import { type AssistantFixture, scriptedAssistant } from '../support/assistant-harness.js';
import { launchChromium } from '../support/browser.js';
import { browserSkipReason, RENDERER_DIR } from '../support/browser-app.js';
import { FakeGlobalShortcut } from '../unit/desktop/fake-electron.js';

const skipReason = browserSkipReason('the desktop settings suite');

describe.skipIf(skipReason !== null)('Settings → Desktop in the browser', () => {
  let fixture: AssistantFixture;
  let scratch = '';
  let settings: DesktopSettingsStore;
  const shortcuts = new FakeGlobalShortcut(['Control+Shift+K']);
  const loginItem: boolean[] = [];
  let app: Gateway;
  let plain: Gateway;
  let browser: Browser;

  async function openDesktopSection(gateway: Gateway): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(gateway.openUrl);
    await page.getByText('connected').first().waitFor();
    await page.getByRole('tab', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Desktop', exact: true }).click();
    return page;
  }

  beforeAll(async () => {
    fixture = await scriptedAssistant({ delayMs: 1 });
    scratch = await mkdtemp(path.join(os.tmpdir(), 'pincer-desktop-e2e-'));
    settings = new DesktopSettingsStore(path.join(scratch, 'desktop.json'));
    await settings.load();
    const preferences = new DesktopPreferences({
      settings,
      shortcuts,
      summon: () => {},
      applyStartAtLogin: async (enabled) => {
        loginItem.push(enabled);
      },
    });
    preferences.start();
    app = await startGateway({
      handlers: createCoreHandlers({
        assistant: fixture.assistant,
        electronVersion: null,
        desktop: () => preferences,
      }),
      subscribe: (listener) => fixture.assistant.subscribe(listener),
      rendererDir: RENDERER_DIR,
    });
    plain = await startAssistantGateway({
      assistant: fixture.assistant,
      rendererDir: RENDERER_DIR,
    });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await plain?.close();
    await fixture?.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('records a new shortcut, refuses one another app owns, and keeps the check boxes', async () => {
    const page = await openDesktopSection(app);
    const shown = page.getByTestId('desktop-shortcut');
    expect(await shown.textContent()).toMatch(/Space/);

    await page.getByRole('button', { name: 'Change…' }).click();
    await page.keyboard.press('Alt+Shift+KeyP');
    await expect.poll(() => shown.textContent()).toBe('Alt + Shift + P');
    expect([...shortcuts.registered.keys()]).toEqual(['Alt+Shift+P']);

    await page.getByRole('button', { name: 'Change…' }).click();
    await page.keyboard.press('Control+Shift+KeyK');
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/taken by another/);
    expect(await shown.textContent()).toBe('Alt + Shift + P');
    expect([...shortcuts.registered.keys()]).toEqual(['Alt+Shift+P']);
    // Recording took the press: the app's Ctrl+K search did not open over it.
    expect(await page.getByPlaceholder('Search all conversations').count()).toBe(0);

    await page.getByRole('checkbox', { name: /Start Pincer when I log in/ }).check();
    await page.getByRole('checkbox', { name: /Keep running in the tray/ }).uncheck();
    await expect
      .poll(async () => JSON.parse(await readFile(settings.file, 'utf8')))
      .toMatchObject({ startAtLogin: true, closeToTray: false, globalShortcut: 'Alt+Shift+P' });
    expect(loginItem).toEqual([true]);
    await page.close();
  }, 60_000);

  it('served by pincer gateway, the section says it belongs to the desktop app', async () => {
    const page = await openDesktopSection(plain);
    await page.getByText('These settings belong to the desktop app').waitFor();
    expect(await page.getByRole('checkbox').count()).toBe(0);
    await page.close();
  }, 60_000);
});
