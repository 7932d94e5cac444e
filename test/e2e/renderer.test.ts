import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Gateway, startAssistantGateway } from '../../src/main/core/gateway/server.js';
import { RENDERER_CSP } from '../../src/shared/csp.js';
import { type AssistantFixture, scriptedAssistant } from '../support/assistant-harness.js';
import { chromiumMissingReason, launchChromium } from '../support/browser.js';

const rendererDir = path.resolve(import.meta.dirname, '../../out/renderer');
const skipReason =
  chromiumMissingReason() ??
  (existsSync(path.join(rendererDir, 'index.html'))
    ? null
    : 'renderer not built: run `npm run build`');
if (skipReason) console.warn(`[e2e] skipping the renderer suite: ${skipReason}`);

/** The built renderer in Chromium, served by the real gateway over the real core. */
describe.skipIf(skipReason !== null)('renderer in Chromium through the gateway', () => {
  let browser: Browser;
  let gateway: Gateway;
  let fixture: AssistantFixture;

  beforeAll(async () => {
    fixture = await scriptedAssistant();
    gateway = await startAssistantGateway({ assistant: fixture.assistant, rendererDir });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await fixture?.close();
  });

  it('without the token: not connected, with the headless hint', async () => {
    const page = await browser.newPage();
    await page.goto(`${gateway.origin}/`);
    await expect.poll(() => page.getByTestId('connection').textContent()).toBe('not connected');
    expect(await page.getByRole('status').textContent()).toContain('npx pincer doctor');
    expect(await page.getByLabel('Message').isDisabled()).toBe(true);
    await page.close();
  });

  it('with the token: app info and a ping round trip over the WebSocket', async () => {
    const page = await browser.newPage();
    await page.goto(gateway.openUrl);
    await expect
      .poll(() => page.getByTestId('connection').textContent())
      .toMatch(/^connected · v\d/);
    // The token left the address bar at once.
    expect(page.url()).toBe(`${gateway.origin}/`);
    await page.getByLabel('Message').fill('hello core');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('.bubble.agent').textContent()).toMatch(/^run_/);
    // A reload keeps the tab's session (token in sessionStorage, not in the URL).
    await page.reload();
    await expect.poll(() => page.getByTestId('connection').textContent()).toMatch(/^connected/);
    await page.close();
  });

  it('a wrong token is refused and the UI says not connected', async () => {
    const page = await browser.newPage();
    await page.goto(`${gateway.origin}/#token=not-the-token`);
    await expect.poll(() => page.getByTestId('connection').textContent()).toBe('not connected');
    await page.close();
  });

  it('enforces the strict CSP: an injected inline script does not run', async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) violations.push(message.text());
    });
    const response = await page.goto(`${gateway.origin}/`);
    expect(response?.headers()['content-security-policy']).toBe(RENDERER_CSP);
    const meta = await page
      .locator('meta[http-equiv="Content-Security-Policy"]')
      .getAttribute('content');
    expect(meta).toBe(RENDERER_CSP);
    const ran = await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.__injected = true;';
      document.head.append(script);
      return (window as unknown as Record<string, unknown>).__injected === true;
    });
    expect(ran).toBe(false);
    await expect.poll(() => violations.length).toBeGreaterThan(0);
    await page.close();
  });
});
