/**
 * Images in a message, in Chromium through the real gateway over the real assistant: a provider
 * added with "Its models take images" (a real OpenAI-compatible server on 127.0.0.1), a PNG
 * attached through the file chooser and another pasted from the clipboard, both shown as
 * thumbnails, sent, received by the server as the exact bytes, and shown in the transcript, also
 * after a reload. A text-only model is said before sending, and Send waits.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pngOf } from '../fixtures/images.js';
import { startVendorServer, type VendorServer } from '../fixtures/vendor-server.js';
import { openaiFrames } from '../fixtures/vendor-streams.js';
import {
  browserSkipReason,
  openBrowserApp,
  type ScriptedBrowserApp,
} from '../support/browser-app.js';

const skipReason = browserSkipReason('the images suite');

const RED = pngOf(6, 4, [220, 20, 20]);
const BLUE = pngOf(5, 5, [20, 20, 220]);
const GREEN = pngOf(2, 2, [20, 200, 20]);

describe.skipIf(skipReason !== null)('images in a message, in the browser', () => {
  let server: VendorServer;
  let app: ScriptedBrowserApp;
  let page: Page;

  const composer = () => page.getByRole('textbox', { name: 'Message' });
  const picker = () => page.getByRole('combobox', { name: 'Model' });
  const thumbnails = () => page.getByRole('list', { name: 'Attached images' }).locator('img');
  /** Whether every image the locator finds has been decoded by the browser. */
  const decoded = (selector: string) =>
    page.$$eval(selector, (imgs) =>
      imgs.map(
        (img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth,
      ),
    );

  async function paste(name: string, bytes: Buffer) {
    await composer().evaluate(
      (box, file) => {
        const transfer = new DataTransfer();
        const data = Uint8Array.from(atob(file.base64), (c) => c.charCodeAt(0));
        transfer.items.add(new File([data], file.name, { type: 'image/png' }));
        box.dispatchEvent(
          new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }),
        );
      },
      { name, base64: bytes.toString('base64') },
    );
  }

  beforeAll(async () => {
    server = await startVendorServer();
    app = await openBrowserApp({ scripted: { delayMs: 5 } });
    ({ page } = app);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await server?.close();
  });

  it('adds an OpenAI-compatible provider whose models take images', async () => {
    await page.getByRole('button', { name: 'Add provider' }).click();
    const form = page.getByRole('form', { name: 'Add provider' });
    await form.getByLabel('Name').fill('eyes');
    await form.getByLabel('Address').fill(server.url);
    const images = form.getByRole('checkbox', { name: /Its models take images/ });
    // Off by default for an OpenAI-compatible server; on for the vendors' own kinds.
    expect(await images.isChecked()).toBe(false);
    await form.getByLabel('Kind').selectOption('anthropic');
    expect(await images.isChecked()).toBe(true);
    await form.getByLabel('Kind').selectOption('openai-compatible');
    await images.check();
    server.reply({ kind: 'json', body: { data: [{ id: 'llava' }] } });
    await form.getByRole('button', { name: 'Add' }).click();
    await page.getByTestId('connection-eyes').waitFor();
    expect(await page.getByTestId('connection-eyes').textContent()).toContain('takes images');
  });

  it('a text-only model is said before sending; the images and words stay', async () => {
    await page.getByRole('tab', { name: /^Chat/ }).click();
    await expect.poll(() => picker().inputValue()).toBe('launch');
    await composer().fill('What colour?');
    await paste('image.png', GREEN);
    await expect.poll(() => thumbnails().count()).toBe(1);
    await page.getByTestId('images-refused').waitFor();
    expect(await page.getByTestId('images-refused').textContent()).toContain(
      'The selected model does not take images; pick one that does',
    );
    expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
    await composer().press('Enter');
    expect(await composer().inputValue()).toBe('What colour?');
    // Removing the image lets the words go to this model.
    await page.getByRole('button', { name: 'Remove image.png' }).click();
    await expect.poll(() => thumbnails().count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(false);
    await composer().fill('');
  });

  it('attaches by the file chooser and by paste, shows thumbnails, and the server gets the bytes', async () => {
    await picker().selectOption('connection:eyes:llava');
    await expect
      .poll(() => page.getByTestId('status-model').textContent())
      .toBe('openai-compatible/llava');

    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      page.getByRole('button', { name: 'Attach' }).click(),
    ]);
    await chooser.setFiles([{ name: 'red.png', mimeType: 'image/png', buffer: RED }]);
    await paste('image.png', BLUE);
    await expect.poll(() => thumbnails().count()).toBe(2);
    expect(
      await thumbnails().evaluateAll((imgs) => imgs.map((i) => i.getAttribute('alt'))),
    ).toEqual(['red.png', 'image.png']);
    await expect.poll(() => decoded('.composer-images img')).toEqual([6, 5]);
    // A file named like an image whose bytes are not one is refused; the rest stays.
    await page
      .getByLabel('Files to attach')
      .setInputFiles([
        { name: 'fake.png', mimeType: 'image/png', buffer: Buffer.from('not a picture') },
      ]);
    await page.getByText('fake.png: not a PNG, JPEG, GIF or WebP image').waitFor();
    expect(await thumbnails().count()).toBe(2);
    expect(await page.getByTestId('images-refused').count()).toBe(0);

    server.reply({ kind: 'sse', frames: openaiFrames({ text: ['Red, ', 'then blue.'] }) });
    const before = server.requests.length;
    await composer().fill('Which colours are these?');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect
      .poll(() => page.getByTestId('assistant-message').last().textContent(), { timeout: 30_000 })
      .toContain('Red, then blue.');
    expect(server.requests.length).toBe(before + 1);
    const body = server.requests.at(-1)?.body as {
      messages: Array<{ role: string; content: unknown }>;
    };
    expect(body.messages.filter((m) => m.role === 'user').at(-1)?.content).toEqual([
      { type: 'image_url', image_url: { url: `data:image/png;base64,${RED.toString('base64')}` } },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${BLUE.toString('base64')}` } },
      { type: 'text', text: 'Which colours are these?' },
    ]);
    // Sent images leave the composer.
    expect(await thumbnails().count()).toBe(0);
  });

  it('the transcript shows the images with the message, also after a reload', async () => {
    const shown = () => page.getByTestId('user-message').last().getByTestId('message-image');
    const sources = () => shown().evaluateAll((imgs) => imgs.map((i) => i.getAttribute('src')));
    const expected = [
      `data:image/png;base64,${RED.toString('base64')}`,
      `data:image/png;base64,${BLUE.toString('base64')}`,
    ];
    await expect.poll(sources).toEqual(expected);
    await expect.poll(() => decoded('[data-testid="message-image"]')).toEqual([6, 5]);

    await page.reload();
    await page.getByText('connected · gateway').waitFor();
    await expect.poll(sources, { timeout: 30_000 }).toEqual(expected);
    await expect.poll(() => decoded('[data-testid="message-image"]')).toEqual([6, 5]);
  });
});
