/**
 * Choosing a model in Chromium through the real gateway: "Add provider" with a test connection
 * against a real OpenAI-compatible server on 127.0.0.1, then a switch to one of its models in the
 * middle of a conversation and back to the model the app started with.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVendorServer, type VendorServer } from '../fixtures/vendor-server.js';
import { openaiFrames } from '../fixtures/vendor-streams.js';
import {
  browserSkipReason,
  openBrowserApp,
  type ScriptedBrowserApp,
} from '../support/browser-app.js';

const shots = path.resolve(import.meta.dirname, 'screenshots');
const skipReason = browserSkipReason('the model picker suite');

const KEY = 'sk-e2e-picker-51d0';
const MODELS = { kind: 'json' as const, body: { data: [{ id: 'qwen2.5:7b' }, { id: 'llama3' }] } };

describe.skipIf(skipReason !== null)('choosing a model in the browser', () => {
  let server: VendorServer;
  let app: ScriptedBrowserApp;
  let page: Page;
  const framesFromCore: string[] = [];

  const composer = () => page.getByRole('textbox', { name: 'Message' });
  const picker = () => page.getByRole('combobox', { name: 'Model' });
  const lastReply = () => page.getByTestId('assistant-message').last();
  async function send(text: string) {
    await composer().fill(text);
    await composer().press('Enter');
    // The reply is done when Send is back.
    await page.locator('.composer button', { hasText: 'Send' }).waitFor();
  }

  beforeAll(async () => {
    await mkdir(shots, { recursive: true });
    server = await startVendorServer();
    app = await openBrowserApp({
      scripted: { delayMs: 5 },
      viewport: { width: 1280, height: 800 },
      beforeLoad: (page) => {
        page.on('websocket', (ws) =>
          ws.on('framereceived', (f) => framesFromCore.push(String(f.payload))),
        );
      },
    });
    ({ page } = app);
  });
  afterAll(async () => {
    await app?.close();
    await server?.close();
  });

  it('the picker starts on the launch model and offers Add provider', async () => {
    await expect.poll(() => picker().inputValue()).toBe('launch');
    expect(await picker().locator('option').allTextContents()).toEqual(['scripted/test']);
  });

  it('adds an OpenAI-compatible provider after testing the connection', async () => {
    await page.getByRole('button', { name: 'Add provider' }).click();
    const form = page.getByRole('form', { name: 'Add provider' });
    await form.getByLabel('Name').fill('lab');
    await form.getByLabel('Address').fill(server.url);
    await form.getByLabel(/API key/).fill(KEY);
    server.reply(MODELS);
    await form.getByRole('button', { name: 'Test connection' }).click();
    await expect
      .poll(() => page.getByTestId('provider-status').textContent())
      .toBe('Connected: 2 models');
    expect(await form.getByRole('list', { name: 'Models the server lists' }).textContent()).toBe(
      'llama3qwen2.5:7b',
    );
    server.reply(MODELS);
    await form.getByRole('button', { name: 'Add' }).click();
    await expect
      .poll(() => page.getByTestId('provider-status').textContent())
      .toContain('Added lab');
    await page.getByTestId('connection-lab').waitFor();
    expect(server.requests.map((r) => `${r.method} ${r.path} ${r.headers.authorization}`)).toEqual([
      `GET /models Bearer ${KEY}`,
      `GET /models Bearer ${KEY}`,
    ]);
    // The key went in and never came back out.
    expect(framesFromCore.join('\n')).not.toContain(KEY);
    expect(await page.content()).not.toContain(KEY);
  });

  it('switches to the server mid-conversation and back', async () => {
    await page.getByRole('tab', { name: /^Chat/ }).click();
    await send('hello there');
    await expect.poll(() => lastReply().textContent()).toContain('Hello from Pincer');

    await picker().selectOption('connection:lab:qwen2.5:7b');
    await expect
      .poll(() => page.getByTestId('status-model').textContent())
      .toBe('openai-compatible/qwen2.5:7b');
    await page.screenshot({ path: path.join(shots, 'model-picker.png') });

    server.reply({ kind: 'sse', frames: openaiFrames({ text: ['Answered ', 'by the server.'] }) });
    await send('and now?');
    await expect.poll(() => lastReply().textContent()).toContain('Answered by the server.');
    const asked = server.requests.at(-1);
    expect(asked?.path).toBe('/chat/completions');
    expect((asked?.body as { model?: string } | undefined)?.model).toBe('qwen2.5:7b');
    expect(JSON.stringify(asked?.body)).toContain('hello there');

    await picker().selectOption('launch');
    await expect.poll(() => page.getByTestId('status-model').textContent()).toBe('scripted/test');
    const before = server.requests.length;
    await send('and back?');
    await expect.poll(() => lastReply().textContent()).toContain('Hello from Pincer');
    expect(server.requests.length).toBe(before);
  });

  it('a conversation reopened later shows the model it answers with', async () => {
    const first = await page.locator('.session-row.active').textContent();
    await page.getByRole('button', { name: /New chat/ }).click();
    await expect.poll(() => picker().inputValue()).toBe('launch');
    await picker().selectOption('connection:lab:llama3');
    server.reply({ kind: 'sse', frames: openaiFrames({ text: ['llama here'] }) });
    await send('who are you?');
    await expect.poll(() => lastReply().textContent()).toContain('llama here');
    // Back in the first conversation the picker shows its own model, and it answers with it.
    await page
      .locator('.session-row', { hasText: first ?? '' })
      .first()
      .click();
    await expect.poll(() => picker().inputValue()).toBe('launch');
    await send('still you?');
    await expect.poll(() => lastReply().textContent()).toContain('Hello from Pincer');
  });
});
