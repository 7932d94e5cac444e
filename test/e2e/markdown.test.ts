/**
 * Markdown in Chromium through the real gateway: headings in size order, table columns aligned
 * as written, and code highlighted by a highlighter loaded only when a code block first shows.
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
if (skipReason) console.warn(`[e2e] skipping the markdown suite: ${skipReason}`);

describe.skipIf(skipReason !== null)('markdown in the browser', () => {
  let browser: Browser;
  let gateway: Gateway;
  let fixture: AssistantFixture;
  let page: Page;
  const scripts: string[] = [];

  beforeAll(async () => {
    fixture = await scriptedAssistant({ delayMs: 5 });
    gateway = await startAssistantGateway({ assistant: fixture.assistant, rendererDir });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    page.on('request', (request) => {
      if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
    });
    await page.goto(gateway.openUrl);
    await page.getByText('connected · gateway').waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await fixture?.close();
  });

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
