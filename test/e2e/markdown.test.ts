/**
 * Markdown in Chromium through the real gateway: headings in size order, table columns aligned
 * as written, and code highlighted by a highlighter loaded only when a code block first shows.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  browserSkipReason,
  openBrowserApp,
  type ScriptedBrowserApp,
} from '../support/browser-app.js';

const skipReason = browserSkipReason('the markdown suite');

describe.skipIf(skipReason !== null)('markdown in the browser', () => {
  let app: ScriptedBrowserApp;
  let page: Page;
  const scripts: string[] = [];

  beforeAll(async () => {
    app = await openBrowserApp({
      scripted: { delayMs: 5 },
      viewport: { width: 1200, height: 900 },
      beforeLoad: (page) => {
        page.on('request', (request) => {
          if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
        });
      },
    });
    ({ page } = app);
  });
  afterAll(() => app?.close());

  it('loads the highlighter only once code is shown, then colours the code', async () => {
    expect(scripts.some((s) => s.includes('lowlight'))).toBe(false);
    const composer = page.getByRole('textbox', { name: 'Message' });
    await composer.fill('markdown please');
    await composer.press('Enter');
    const reply = page.getByTestId('assistant-message').last();
    await reply.locator('code.hljs').waitFor();
    expect(scripts.some((s) => s.includes('lowlight'))).toBe(true);
    expect(await reply.locator('code.hljs .hljs-keyword').allTextContents()).toEqual([
      'def',
      'return',
    ]);
    expect(await reply.locator('code.hljs .hljs-comment').textContent()).toBe('# the answer');
    expect(await reply.locator('code.hljs').textContent()).toBe(
      'def answer():\n    return 42  # the answer',
    );
  });

  it('headings shrink in order and table columns keep their alignment', async () => {
    const reply = page.getByTestId('assistant-message').last();
    const sizes = await reply
      .locator('h3, h4, h5')
      .evaluateAll((els) => els.map((el) => Number.parseFloat(getComputedStyle(el).fontSize)));
    expect(sizes).toHaveLength(3);
    expect(sizes[0]).toBeGreaterThan(sizes[1] ?? 0);
    expect(sizes[1]).toBeGreaterThan(sizes[2] ?? 0);
    const aligns = await reply
      .locator('tbody td')
      .evaluateAll((els) => els.map((el) => getComputedStyle(el).textAlign));
    expect(aligns).toEqual(['left', 'center', 'right']);
  });
});
