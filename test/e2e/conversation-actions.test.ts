/**
 * What people do with a conversation, in Chromium through the real gateway: find a message
 * from an earlier chat (Ctrl+K) and land on it, export as Markdown and JSON, copy, regenerate
 * (a sibling reply with version arrows), edit and resend, retry after an error, continue after
 * Stop. The scripted model numbers its answers so versions tell apart.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Assistant, createAssistant } from '../../src/main/core/assistant/index.js';
import { type Gateway, startAssistantGateway } from '../../src/main/core/gateway/server.js';
import { viaProvider } from '../../src/main/core/models/access.js';
import type { ModelRequest } from '../../src/main/core/models/types.js';
import { APP_DIR } from '../support/assistant-harness.js';
import { launchChromium } from '../support/browser.js';
import { browserSkipReason, RENDERER_DIR } from '../support/browser-app.js';
import { ScriptedProvider } from '../support/scripted-provider.js';
import { vaultSecrets } from '../support/secrets.js';

const skipReason = browserSkipReason('the conversation actions suite');

function question(request: ModelRequest): string {
  const block = request.messages.at(-1)?.content.find((b) => b.type === 'text');
  return block?.type === 'text' ? block.text : '';
}

describe.skipIf(skipReason !== null)('conversation actions in the browser', () => {
  let dataDir: string;
  let assistant: Assistant;
  let gateway: Gateway;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let answers = 0;
  let failNext = false;

  const composer = () => page.getByRole('textbox', { name: 'Message' });
  const replies = () => page.getByTestId('assistant-message');
  /** The reply's words, without its buttons. */
  const lastReplyText = () => replies().last().locator('.markdown').textContent();
  /** Does `act`, then waits until the run it starts has ended in the core and in the page. */
  async function aRun(act: () => Promise<void>) {
    const before = assistant.listRuns({ limit: 500 }).length;
    await act();
    await expect
      .poll(() => {
        const runs = assistant.listRuns({ limit: 500 });
        return runs.length > before && runs.every((run) => !run.live);
      })
      .toBe(true);
    await page.locator('.composer button', { hasText: 'Send' }).waitFor();
  }
  async function send(text: string) {
    await aRun(async () => {
      await composer().fill(text);
      await composer().press('Enter');
    });
  }

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-e2e-actions-'));
    const provider = new ScriptedProvider((request) => {
      const asked = question(request);
      if (failNext) {
        failNext = false;
        return { fail: 'bad_response' };
      }
      if (asked.startsWith('slow')) {
        return { text: Array.from({ length: 300 }, (_, i) => `w${i} `), delayMs: 100 };
      }
      answers += 1;
      return { text: [`Answer ${answers} `, `to: ${asked}`], delayMs: 5 };
    });
    assistant = await createAssistant({
      dataDir,
      appDir: APP_DIR,
      model: {
        kind: 'fixed',
        access: viaProvider(provider, 'scripted'),
        label: 'scripted/test',
        scripted: true,
      },
      secrets: vaultSecrets(dataDir, 'actions'),
    });
    gateway = await startAssistantGateway({ assistant, rendererDir: RENDERER_DIR });
    browser = await launchChromium();
    context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      acceptDownloads: true,
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    page = await context.newPage();

    await page.goto(gateway.openUrl);
    await page.getByText('connected · gateway').waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await assistant?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('Ctrl+K finds a message from an earlier conversation and opens it there', async () => {
    await send('Where do axolotls live?');
    await page.getByRole('button', { name: /New chat/ }).click();
    await send('Something else entirely');
    await page.keyboard.press('Control+k');
    const dialog = page.getByRole('dialog', { name: 'Search chats' });
    await dialog.getByRole('searchbox').fill('axolot');
    const hit = dialog.getByRole('list', { name: 'Results' }).getByRole('button').first();
    await expect.poll(() => hit.textContent()).toContain('Where do axolotls live?');
    expect(await hit.locator('mark').first().textContent()).toBe('axolotls');
    await dialog.getByRole('searchbox').press('Enter');
    await dialog.waitFor({ state: 'detached' });
    await expect
      .poll(() => page.locator('.chat-title').textContent())
      .toBe('Where do axolotls live?');
    await expect.poll(() => page.locator('[data-message-id].found').count()).toBe(1);
    expect(await page.locator('[data-message-id].found').textContent()).toContain(
      'Where do axolotls live?',
    );
  });

  it('exports the conversation as Markdown and as JSON', async () => {
    const [markdown] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export Markdown' }).click(),
    ]);
    expect(markdown.suggestedFilename()).toBe('Where-do-axolotls-live.md');
    const text = await readFile((await markdown.path()) ?? '', 'utf8');
    expect(text).toMatch(/^# Where do axolotls live\?\n/);
    expect(text).toContain('## You');
    expect(text).toContain('to: Where do axolotls live?');
    const [json] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export JSON' }).click(),
    ]);
    const parsed = JSON.parse(await readFile((await json.path()) ?? '', 'utf8'));
    expect(parsed.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
  });

  it('copies a reply', async () => {
    await replies().last().hover();
    await replies().last().getByRole('button', { name: 'Copy reply' }).click();
    await expect
      .poll(() => page.evaluate(() => navigator.clipboard.readText()))
      .toMatch(/^Answer \d+ to: Where do axolotls live\?$/);
  });

  it('regenerate makes a sibling reply, and the arrows switch between the versions', async () => {
    const first = await lastReplyText();
    await aRun(() => replies().last().getByRole('button', { name: 'Regenerate' }).click());
    await expect.poll(() => page.getByTestId('version-index').textContent()).toBe('2 / 2');
    const second = await lastReplyText();
    expect(second).not.toBe(first);
    expect(second).toContain('to: Where do axolotls live?');
    expect(await page.getByTestId('user-message').count()).toBe(1);
    await page.getByRole('button', { name: 'Previous version' }).click();
    await expect.poll(() => page.getByTestId('version-index').textContent()).toBe('1 / 2');
    await expect.poll(lastReplyText).toBe(first);
    await page.getByRole('button', { name: 'Next version' }).click();
    await expect.poll(lastReplyText).toBe(second);
  });

  it('edit and resend asks the changed question beside the old one', async () => {
    await page.getByTestId('user-message').last().hover();
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const box = page.getByRole('textbox', { name: 'Edit message' });
    await box.fill('Where do salamanders live?');
    await aRun(() => page.locator('.edit-bubble').getByRole('button', { name: 'Send' }).click());
    await expect
      .poll(() => page.getByTestId('user-message').last().textContent())
      .toContain('Where do salamanders live?');
    await expect.poll(() => replies().last().textContent()).toContain('to: Where do salamanders');
    await expect.poll(() => page.getByTestId('version-index').textContent()).toBe('3 / 3');
  });

  it('retry after an error asks again, and continue after Stop goes on', async () => {
    failNext = true;
    await send('a question that fails once');
    await expect
      .poll(() => page.getByTestId('run-notice').last().textContent())
      .toContain('The model failed');
    await aRun(() => page.getByRole('button', { name: 'Retry' }).last().click());
    await expect
      .poll(() => replies().last().textContent())
      .toContain('to: a question that fails once');

    await aRun(async () => {
      await composer().fill('slow story');
      await composer().press('Enter');
      await expect.poll(() => replies().last().textContent()).toContain('w3');
      await page.keyboard.press('Escape');
    });
    await expect
      .poll(() => page.getByTestId('run-notice').last().textContent())
      .toContain('Stopped');
    await aRun(() => page.getByRole('button', { name: 'Continue' }).click());
    await expect.poll(() => replies().last().textContent()).toContain('to: Continue.');
  });
});
