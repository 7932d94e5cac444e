/**
 * The composer's Tools menu in Chromium through the real gateway over the real assistant
 * (scripted model): a tool turned off in one conversation is missing from that conversation's
 * next model request, and a new conversation is offered it again.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/main/core/models/types.js';
import type { AssistantFixture } from '../support/assistant-harness.js';
import {
  browserSkipReason,
  openBrowserApp,
  type ScriptedBrowserApp,
} from '../support/browser-app.js';

const skipReason = browserSkipReason('the tools menu suite');

const offered = (request: ModelRequest | undefined) => (request?.tools ?? []).map((t) => t.name);

describe.skipIf(skipReason !== null)('turning a tool off for one conversation', () => {
  let fixture: AssistantFixture;
  let app: ScriptedBrowserApp;
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
    app = await openBrowserApp({ scripted: { delayMs: 1 } });
    ({ page, fixture } = app);
  }, 60_000);
  afterAll(() => app?.close());

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
