/**
 * The layout at 400 px in Chromium through the real gateway: nothing overflows sideways and no
 * text is squeezed to a letter per line; the sidebar is a drawer and approvals an inline sheet.
 * Then the core goes away: the composer is disabled and says why.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/main/core/gateway/server.js';
import type { AssistantFixture } from '../support/assistant-harness.js';
import {
  browserSkipReason,
  openBrowserApp,
  type ScriptedBrowserApp,
} from '../support/browser-app.js';

const shots = path.resolve(import.meta.dirname, 'screenshots');
const skipReason = browserSkipReason('the layout suite');

/** Text squeezed into a column: several lines tall and only a few characters wide. */
function squeezed(page: Page) {
  return page.evaluate(() => {
    const found: string[] = [];
    for (const element of document.querySelectorAll<HTMLElement>('body *')) {
      const own = [...element.childNodes]
        .filter((node) => node.nodeType === Node.TEXT_NODE)
        .map((node) => node.textContent ?? '')
        .join('')
        .trim();
      if (own.length < 4 || element.offsetParent === null) continue;
      const box = element.getBoundingClientRect();
      const style = getComputedStyle(element);
      const font = Number.parseFloat(style.fontSize);
      const line = Number.parseFloat(style.lineHeight) || font * 1.5;
      // 1 px wide is the screen-reader-only text, clipped on purpose.
      if (box.width > 1 && box.height > line * 2.5 && box.width < font * 4)
        found.push(`${element.tagName}: ${own}`);
    }
    return found;
  });
}
const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

describe.skipIf(skipReason !== null)('the layout at 400 px', () => {
  let gateway: Gateway;
  let fixture: AssistantFixture;
  let app: ScriptedBrowserApp;
  let page: Page;
  const composer = () => page.getByRole('textbox', { name: 'Message' });

  beforeAll(async () => {
    await mkdir(shots, { recursive: true });
    app = await openBrowserApp({ scripted: { delayMs: 5 }, viewport: { width: 400, height: 800 } });
    ({ page, fixture, gateway } = app);
  });
  afterAll(() => app?.close());

  it('a conversation fits: no sideways overflow, no letter-per-line text', async () => {
    expect(await page.getByRole('navigation', { name: 'Sessions and views' }).isVisible()).toBe(
      true,
    );
    // The drawer is off screen until asked for.
    const drawer = await page.locator('.sidebar').boundingBox();
    expect((drawer?.x ?? 0) + (drawer?.width ?? 0)).toBeLessThanOrEqual(0);
    await composer().fill('hello there');
    await composer().press('Enter');
    await expect
      .poll(() => page.getByTestId('assistant-message').last().textContent())
      .toContain('two');
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    expect(await squeezed(page)).toEqual([]);
    const box = await composer().boundingBox();
    expect(box?.width).toBeGreaterThan(200);
  });

  it('the menu opens the sidebar as a drawer, and choosing closes it', async () => {
    await page.getByRole('button', { name: 'Menu' }).click();
    await expect.poll(async () => (await page.locator('.sidebar').boundingBox())?.x).toBe(0);
    expect(await squeezed(page)).toEqual([]);
    await page.getByRole('button', { name: /New chat/ }).click();
    await expect
      .poll(async () => {
        const box = await page.locator('.sidebar').boundingBox();
        return (box?.x ?? 0) + (box?.width ?? 0);
      })
      .toBeLessThanOrEqual(0);
  });

  it('an approval is an inline sheet under the conversation', async () => {
    await composer().fill('write a note');
    await composer().press('Enter');
    const sheet = page.getByRole('complementary', { name: 'Approvals' });
    await sheet.waitFor();
    const box = await sheet.boundingBox();
    expect(box?.x).toBe(0);
    expect(box?.width).toBe(400);
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    expect(await squeezed(page)).toEqual([]);
    await page.screenshot({ path: path.join(shots, 'narrow.png') });
    await sheet
      .getByRole('button', { name: /^Approve/ })
      .first()
      .click();
    await sheet.waitFor({ state: 'detached' });
    await expect.poll(() => fixture.assistant.listRuns().every((run) => !run.live)).toBe(true);
  });

  it('without the core, the composer is disabled and says why', async () => {
    await gateway.close();
    await expect.poll(() => page.getByTestId('connection').textContent()).toBe('not connected');
    expect(await composer().isDisabled()).toBe(true);
    expect(await composer().getAttribute('placeholder')).toContain(
      'Not connected to the Pincer core',
    );
    expect(await page.locator('.composer button', { hasText: 'Send' }).isDisabled()).toBe(true);
    // The notice reads as a sentence, not as columns.
    expect(await squeezed(page)).toEqual([]);
  });
});
