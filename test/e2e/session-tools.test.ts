/**
 * The composer's Tools menu in Chromium through the real gateway over the real assistant
 * (scripted model): a tool turned off in one conversation is missing from that conversation's
 * next model request, and a new conversation is offered it again.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Gateway, startAssistantGateway } from '../../src/main/core/gateway/server.js';
import type { ModelRequest } from '../../src/main/core/models/types.js';
import { type AssistantFixture, scriptedAssistant } from '../support/assistant-harness.js';
import { chromiumMissingReason, launchChromium } from '../support/browser.js';

const rendererDir = path.resolve(import.meta.dirname, '../../out/renderer');
const skipReason =
  chromiumMissingReason() ??
  (existsSync(path.join(rendererDir, 'index.html'))
    ? null
    : 'renderer not built: run `npm run build`');
if (skipReason) console.warn(`[e2e] skipping the tools menu suite: ${skipReason}`);

const offered = (request: ModelRequest | undefined) => (request?.tools ?? []).map((t) => t.name);

describe.skipIf(skipReason !== null)('turning a tool off for one conversation', () => {
  let browser: Browser;
  let gateway: Gateway;
  let fixture: AssistantFixture;
  let page: Page;

  const composer = () => page.getByRole('textbox', { name: 'Message' });
  async function send(text: string) {
    const before = fixture.provider.requests.length;
    await composer().fill(text);
    await composer().press('Enter');
    await expect.poll(() => fixture.provider.requests.length, { timeout: 30_000 }).toBe(before + 1);
    // The reply is done when Send is back.
    await page.locator('.composer button', { hasText: 'Send' }).waitFor();
  }

  beforeAll(async () => {
    fixture = await scriptedAssistant({ delayMs: 1 });
    gateway = await startAssistantGateway({ assistant: fixture.assistant, rendererDir });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(gateway.openUrl);
    await page.getByText('connected · gateway').waitFor();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await fixture?.close();
  });

  it('the next request of that conversation lacks the tool; a new one has it', async () => {
    const tools = page.getByRole('button', { name: 'Tools', exact: true });
    // A new chat has no conversation yet to keep the choice.
    expect(await tools.isDisabled()).toBe(true);
    await send('hello');
    expect(offered(fixture.provider.requests.at(-1))).toContain('net/fetch');

    await tools.click();
    const menu = page.getByRole('dialog', { name: 'Tools for this conversation' });
    const fetchBox = menu.getByRole('checkbox', { name: /net\/fetch/ });
    expect(await fetchBox.isChecked()).toBe(true);
    await fetchBox.uncheck();
    await page.getByRole('button', { name: 'Tools (1 off)' }).waitFor();
    const [session] = fixture.assistant.listSessions();
    expect(
      fixture.assistant.sessionTools(session?.id ?? '').find((t) => t.name === 'net/fetch')
        ?.enabled,
    ).toBe(false);
    await page.keyboard.press('Escape');

    await send('and again');
    const next = offered(fixture.provider.requests.at(-1));
    expect(next).not.toContain('net/fetch');
    expect(next).toContain('fs/read');

    // A new conversation is offered every tool.
    await page.getByRole('button', { name: 'New chat' }).first().click();
    await send('fresh start');
    expect(offered(fixture.provider.requests.at(-1))).toContain('net/fetch');
  });
});
