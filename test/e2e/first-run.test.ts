/**
 * The first run in Chromium through the real gateway: no model anywhere, the three ways to
 * start with the recommended download's size and memory fit, and a GGUF file imported with the
 * file chooser that becomes the model.
 */
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Assistant, createAssistant } from '../../src/main/core/assistant/index.js';
import { placementText } from '../../src/shared/gpu-fit.js';
import { writeTinyGguf } from '../fixtures/tiny-gguf.js';
import { APP_DIR } from '../support/assistant-harness.js';
import { type BrowserApp, browserSkipReason, openBrowserApp } from '../support/browser-app.js';
import { vaultSecrets } from '../support/secrets.js';

const shots = path.resolve(import.meta.dirname, 'screenshots');
const skipReason = browserSkipReason('the first-run suite');

describe.skipIf(skipReason !== null)('the first run in the browser', () => {
  let dataDir: string;
  let assistant: Assistant;
  let app: BrowserApp;
  let page: Page;
  let modelFile: string;

  beforeAll(async () => {
    await mkdir(shots, { recursive: true });
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-e2e-first-'));
    modelFile = path.join(dataDir, 'downloads', 'tiny-chat.gguf');
    await mkdir(path.dirname(modelFile));
    await writeTinyGguf(modelFile);
    assistant = await createAssistant({
      dataDir,
      appDir: APP_DIR,
      model: { kind: 'local' },
      env: {},
      local: { threads: 2 },
      secrets: vaultSecrets(dataDir, 'first-run'),
    });
    app = await openBrowserApp({ assistant, viewport: { width: 1280, height: 800 } });
    ({ page } = app);
  });
  afterAll(async () => {
    await app?.close();
    await assistant?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('offers the recommended download with its size and memory fit, a file, or a provider', async () => {
    const firstRun = page.getByTestId('first-run');
    await firstRun.waitFor();
    expect(await firstRun.getByRole('heading', { level: 2 }).textContent()).toBe(
      'Choose a model to start',
    );
    const state = await assistant.models();
    const pick = state.catalog.find((m) => m.name === state.recommended);
    expect(await firstRun.getByRole('heading', { level: 3 }).allTextContents()).toEqual([
      `Download ${pick?.displayName}`,
      'Import a GGUF file',
      'Connect a provider',
    ]);
    expect(await page.getByTestId('recommended-fit').textContent()).toMatch(
      /^[\d.]+ (MB|GB) download · needs about [\d.]+ GB of memory; this computer has [\d.]+ GB/,
    );
    // Where it would run, from the GPU memory the core found (none on a CI machine).
    const gpu = await assistant.gpuMemory();
    const where = placementText(pick?.ramBytes ?? 0, gpu);
    await expect
      .poll(() => page.getByTestId('recommended-gpu').textContent())
      .toBe(`${where.charAt(0).toUpperCase()}${where.slice(1)}.`);
    expect(await page.getByRole('combobox', { name: 'Model' }).isDisabled()).toBe(true);
    await page.screenshot({ path: path.join(shots, 'first-run.png') });
  });

  it('imports a GGUF with the file chooser, and it becomes the model', async () => {
    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      page.getByTestId('first-run').getByRole('button', { name: 'Choose a GGUF file…' }).click(),
    ]);
    await chooser.setFiles(modelFile);
    await page.getByTestId('first-run').waitFor({ state: 'detached' });
    await expect
      .poll(() => page.getByTestId('status-model').textContent())
      .toBe('local/tiny-chat.gguf');
    expect(await page.getByRole('combobox', { name: 'Model' }).inputValue()).toBe(
      'local:tiny-chat.gguf',
    );
    expect(await readdir(path.join(dataDir, 'models'))).toEqual(['tiny-chat.gguf']);
    await page.getByRole('heading', { name: 'How can I help?' }).waitFor();
  });
});
