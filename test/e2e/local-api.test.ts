/**
 * Settings → Local API in Chromium through the real gateway, over an assistant on the tiny GGUF
 * (real node-llama-cpp): the toggle turns the endpoint on, the key appears once (one WebSocket
 * frame ever carries it), the official `openai` client gets answers with it, the status bar
 * counts the external requests and the log lists them without their content.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Assistant, createAssistant } from '../../src/main/core/assistant/index.js';
import { QWEN_TOOLS_TEMPLATE, writeTinyGguf } from '../fixtures/tiny-gguf.js';
import { APP_DIR } from '../support/assistant-harness.js';
import { type BrowserApp, browserSkipReason, openBrowserApp } from '../support/browser-app.js';
import { vaultSecrets } from '../support/secrets.js';

const skipReason = browserSkipReason('the local API suite');

describe.skipIf(skipReason !== null)('Settings → Local API in the browser', () => {
  let dataDir: string;
  let assistant: Assistant;
  let app: BrowserApp;
  let page: Page;
  /** Every WebSocket frame the page received, in order. */
  const frames: string[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-e2e-local-api-'));
    const modelPath = path.join(dataDir, 'tiny-chat.gguf');
    await writeTinyGguf(modelPath, { tokenizer: 'bpe', chatTemplate: QWEN_TOOLS_TEMPLATE });
    assistant = await createAssistant({
      dataDir,
      appDir: APP_DIR,
      env: {},
      model: { kind: 'local', modelPath },
      local: { threads: 2, contextSize: 1024 },
      tools: '',
      secrets: vaultSecrets(dataDir, 'local-api'),
    });
    app = await openBrowserApp({
      assistant,
      beforeLoad: (page) => {
        page.on('websocket', (ws) => ws.on('framereceived', (f) => frames.push(String(f.payload))));
      },
    });
    ({ page } = app);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await assistant?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  let key = '';
  let baseURL = '';

  it('is off by default; the toggle turns it on and shows the key once', async () => {
    expect(await page.getByTestId('status-endpoint').count()).toBe(0);
    await page.getByRole('tab', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Local API' }).click();
    const toggle = page.getByRole('checkbox', { name: /Serve the local model/ });
    expect(await toggle.isChecked()).toBe(false);
    // A free port: several suites share this machine.
    await page.getByRole('spinbutton', { name: 'Port' }).fill('0');
    await page.getByRole('button', { name: 'Save port' }).click();
    // Controlled by the core's answer: it shows checked once the endpoint is on.
    await toggle.click();
    await page.getByTestId('endpoint-key').waitFor();
    expect(await toggle.isChecked()).toBe(true);
    key = (await page.getByTestId('endpoint-key').textContent()) ?? '';
    expect(key).toMatch(/^pincer-[\w-]{20,}$/);
    await expect
      .poll(() => page.getByTestId('endpoint-state').textContent(), { timeout: 30_000 })
      .toMatch(/^Serving tiny-chat at/);
    baseURL = (await page.getByTestId('endpoint-url').textContent()) ?? '';
    expect(baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    await expect
      .poll(() => page.getByTestId('status-endpoint').textContent())
      .toBe('0 active · 0 queued');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    expect(await page.getByTestId('endpoint-key').count()).toBe(0);
  }, 60_000);

  it('answers the official client; the status bar counts it and the log lists it', async () => {
    const client = new OpenAI({ baseURL, apiKey: key, maxRetries: 0, timeout: 60_000 });
    const before = frames.length;
    const replies = await Promise.all(
      [1, 2].map(() =>
        client.chat.completions.create({
          model: 'tiny-chat',
          messages: [{ role: 'user', content: 'private-words-never-logged' }],
          max_tokens: 8,
        }),
      ),
    );
    expect(replies.every((r) => r.choices[0]?.message.role === 'assistant')).toBe(true);
    // What the status bar was told while they ran: each start is an event with one active.
    const counts = frames
      .slice(before)
      .filter((f) => f.includes('openaiEndpoint.changed'))
      .map((f) => Number(/"active":(\d+)/.exec(f)?.[1] ?? 0));
    expect(Math.max(...counts)).toBeGreaterThanOrEqual(1);
    await expect
      .poll(() => page.getByTestId('status-endpoint').textContent())
      .toBe('0 active · 0 queued');
    const log = page.getByTestId('endpoint-log');
    await expect.poll(() => log.locator('tbody tr').count()).toBe(2);
    const text = (await log.textContent()) ?? '';
    expect(text).toContain('POST /v1/chat/completions');
    expect(text).toContain('tiny-chat');
    expect(text).toContain('200');
    expect(text).not.toContain('private-words-never-logged');
  }, 90_000);

  it('never sends the key to the page again, and turns off', async () => {
    await page.reload();
    await page.getByText('connected · gateway').waitFor();
    await page.getByRole('tab', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Local API' }).click();
    await expect
      .poll(() => page.getByTestId('endpoint-state').textContent())
      .toMatch(/^Serving tiny-chat/);
    expect(await page.getByTestId('endpoint-key').count()).toBe(0);
    expect(frames.filter((f) => f.includes(key))).toHaveLength(1);
    await page.getByRole('checkbox', { name: /Serve the local model/ }).click();
    await expect.poll(() => page.getByTestId('endpoint-state').textContent()).toBe('Off');
    await expect.poll(() => page.getByTestId('status-endpoint').count()).toBe(0);
    await expect(fetch(`${baseURL}/models`)).rejects.toThrow();
  }, 60_000);
});
