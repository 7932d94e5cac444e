import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/main/core/ipc/dispatch.js';
import { createCoreHandlers } from '../../src/main/core/ipc/handlers.js';
import { RENDERER_CSP } from '../../src/shared/csp.js';
import { chromiumMissingReason, launchChromium } from '../support/browser.js';
import { type StaticServer, serveStatic } from '../support/static-server.js';

const rendererDir = path.resolve(import.meta.dirname, '../../out/renderer');
const skipReason =
  chromiumMissingReason() ??
  (existsSync(path.join(rendererDir, 'index.html'))
    ? null
    : 'renderer not built: run `npm run build`');
if (skipReason) console.warn(`[e2e] skipping the renderer suite: ${skipReason}`);

describe.skipIf(skipReason !== null)('renderer in Chromium', () => {
  let browser: Browser;
  let server: StaticServer;

  beforeAll(async () => {
    server = await serveStatic(rendererDir);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /**
   * Connects the page to the REAL core dispatcher through a Playwright binding, standing in for
   * the preload's ipcRenderer transport: the renderer sees exactly the `window.pincer` API the
   * preload exposes, and every call is validated against the contract in this process.
   */
  async function openConnected(): Promise<Page> {
    const page = await browser.newPage();
    const handlers = createCoreHandlers({ dataDir: '/e2e/data', electronVersion: null });
    await page.exposeFunction('__pincerTransport', (channel: unknown, request: unknown) =>
      dispatch(handlers, channel, request),
    );
    await page.addInitScript(() => {
      type Result = { ok: true; value: unknown } | { ok: false; error: { message: string } };
      const transport = (window as unknown as Record<string, unknown>).__pincerTransport as (
        channel: string,
        request: unknown,
      ) => Promise<Result>;
      Object.defineProperty(window, 'pincer', {
        value: Object.freeze({
          async invoke(channel: string, request: unknown) {
            const result = await transport(channel, request);
            if (result.ok) return result.value;
            throw new Error(result.error.message);
          },
        }),
      });
    });
    await page.goto(server.url);
    return page;
  }

  it('shows the not-connected state and the headless hint without a bridge', async () => {
    const page = await browser.newPage();
    await page.goto(server.url);
    await expect.poll(() => page.getByTestId('connection').textContent()).toBe('not connected');
    expect(await page.getByRole('status').textContent()).toContain('npx pincer doctor');
    expect(await page.getByLabel('Message').isDisabled()).toBe(true);
    await page.close();
  });

  it('talks to the core through the contract: app info and a ping round trip', async () => {
    const page = await openConnected();
    await expect
      .poll(() => page.getByTestId('connection').textContent())
      .toMatch(/^connected · v\d/);
    await page.getByLabel('Message').fill('hello core');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('.bubble.agent').textContent()).toBe('pong: hello core');
    await page.close();
  });

  it('ships the strict CSP and it blocks inline script', async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) violations.push(message.text());
    });
    await page.goto(server.url);
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
