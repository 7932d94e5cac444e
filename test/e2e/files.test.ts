/**
 * Files in and out, in Chromium through the real gateway over the real assistant (scripted
 * model): Settings → Workspace names the agent's folder; the browser, which cannot reach this
 * machine's file manager, shows the path to copy instead of an "Open folder" button.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Gateway, startAssistantGateway } from '../../src/main/core/gateway/server.js';
import { type AssistantFixture, scriptedAssistant } from '../support/assistant-harness.js';
import { chromiumMissingReason, launchChromium } from '../support/browser.js';

const rendererDir = path.resolve(import.meta.dirname, '../../out/renderer');
const skipReason =
  chromiumMissingReason() ??
  (existsSync(path.join(rendererDir, 'index.html'))
    ? null
    : 'renderer not built: run `npm run build`');
if (skipReason) console.warn(`[e2e] skipping the files suite: ${skipReason}`);

describe.skipIf(skipReason !== null)('files in and out, in the browser', () => {
  let browser: Browser;
  let gateway: Gateway;
  let fixture: AssistantFixture;
  let page: Page;

  beforeAll(async () => {
    fixture = await scriptedAssistant({ delayMs: 1 });
    gateway = await startAssistantGateway({ assistant: fixture.assistant, rendererDir });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(gateway.openUrl);
    await page.getByText('connected · gateway').waitFor();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await fixture?.close();
  });

  it('Settings → Workspace shows the agent’s folder to copy (no Open button in a browser)', async () => {
    await page.getByRole('tab', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Workspace', exact: true }).click();
    const shown = page.getByLabel('Workspace folder');
    await shown.waitFor();
    expect(await shown.textContent()).toBe(fixture.assistant.workspace());
    await page.getByText('Copy the path to open it on this machine.').waitFor();
    expect(await page.getByRole('button', { name: 'Open folder' }).count()).toBe(0);
  });
});
