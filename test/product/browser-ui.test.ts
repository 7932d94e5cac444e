/**
 * `npm start` where the desktop app cannot run (no display, no Electron binary): it serves the
 * built UI from `out/renderer` through the built CLI's gateway, and Chromium, as a user's browser
 * would, sends one chat message and shows the scripted model's reply.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chromiumMissingReason, launchChromium } from '../support/browser.js';
import { Product, repoRoot } from './support/harness.js';

const skipReason = chromiumMissingReason();
if (skipReason) console.warn(`product suite: skipping the browser UI: ${skipReason}`);

describe.skipIf(skipReason !== null)('npm start’s browser UI', () => {
  const product = new Product();
  afterAll(() => product.cleanUp());

  it('serves the built UI, and a chat message there gets the model’s reply', async () => {
    const scratch = await product.scratch('browser', {
      // An empty dist folder stands for "the Electron binary was never downloaded".
      ELECTRON_OVERRIDE_DIST_PATH: await product.tempDir('pincer-product-noelectron-'),
      PINCER_NO_ELECTRON_DOWNLOAD: '1',
      PINCER_NO_BROWSER: '1',
    });
    const started = product.start(scratch.model.args, scratch.env, {
      script: path.join(repoRoot, 'scripts/start.mjs'),
    });
    const url = (await started.waitFor(/^Open: (http:\/\/127\.0\.0\.1:\d+\/\S*)$/m))[1] as string;
    expect(started.output()).toContain('serving the browser UI instead');

    const browser = await launchChromium();
    product.onCleanUp(() => browser.close());
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(url);
    await page.getByText('connected · gateway').waitFor();
    const message = page.getByRole('textbox', { name: 'Message' });
    await message.fill('hello from the browser');
    await message.press('Enter');
    // The reply's text, not the message's action buttons (Copy, Regenerate) beside it once stored.
    await expect
      .poll(() => page.getByTestId('assistant-message').first().locator('.markdown').textContent())
      .toBe('echo: hello from the browser');
    await expect
      .poll(() => page.getByTestId('user-message').first().textContent())
      .toBe('hello from the browser');
  });
});
