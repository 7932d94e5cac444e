/**
 * Importing a GGUF file: the CLI has no `models import`; a user imports in the UI's first run
 * (or Settings), so this drives the built gateway's UI in Chromium with a tiny GGUF made here,
 * then the built CLI lists the model as installed and answers with it.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeTinyGguf } from '../fixtures/tiny-gguf.js';
import { chromiumMissingReason, launchChromium } from '../support/browser.js';
import { Product } from './support/harness.js';

const skipReason = chromiumMissingReason();
if (skipReason) console.warn(`product suite: skipping the model import: ${skipReason}`);

describe.skipIf(skipReason !== null)('importing a GGUF model', () => {
  const product = new Product();
  afterAll(() => product.cleanUp());

  it('the first run imports the chosen file; models list shows it and run answers with it', async () => {
    const scratch = await product.scratch('import', { PINCER_MODEL: '' });
    const file = path.join(await product.tempDir('pincer-product-gguf-'), 'tiny-chat.gguf');
    await writeTinyGguf(file);
    const gateway = product.start(['gateway', '--threads', '1'], scratch.env);
    const url = (await gateway.waitFor(/Open: (http:\/\/127\.0\.0\.1:\d+\/\S*)/))[1] as string;

    const browser = await launchChromium();
    product.onCleanUp(() => browser.close());
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(url);
    const firstRun = page.getByTestId('first-run');
    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      firstRun.getByRole('button', { name: 'Choose a GGUF file…' }).click(),
    ]);
    await chooser.setFiles(file);
    await firstRun.waitFor({ state: 'detached' });
    await expect
      .poll(() => page.getByTestId('status-model').textContent())
      .toBe('local/tiny-chat.gguf');
    gateway.child.kill('SIGINT'); // Ctrl+C, as a user stops it
    // It closes on Ctrl+C rather than dying by the signal (node-llama-cpp, loaded for the import,
    // brings signal-exit, which re-raised a signal no other listener was left to handle).
    const code = await gateway.exited;
    expect({ code, signal: gateway.child.signalCode }, gateway.output()).toEqual({
      code: 0,
      signal: null,
    });

    const listed = await product.run(['models', 'list'], scratch.env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('tiny-chat.gguf');
    const run = await product.run(
      ['run', '--threads', '1', '--max-tokens', '4', '--temperature', '0', '--tools', '', 'hi'],
      scratch.env,
    );
    expect(run.stderr).not.toMatch(/no model|error/i);
    expect(run.code).toBe(0);
    // Seeded random weights: some text, not a scripted one.
    expect(run.stdout.trim().length).toBeGreaterThan(0);
  });
});
