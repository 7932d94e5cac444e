/**
 * An MCP server's form filled in Chromium through the real gateway: the scripted model calls a
 * tool of a stdio server (started under the sandbox) that asks the user to sign up mid-call.
 * After the tool's approval (a supervised manifest), the chat shows the form built from the server's schema, with the
 * server's message as plain text; an incomplete answer is refused with the reasons and nothing
 * typed is lost; the completed form (submitted from the keyboard) reaches the server, whose
 * result the model reads back.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_DIR, type AssistantFixture, scriptedAssistant } from '../support/assistant-harness.js';
import { type BrowserApp, browserSkipReason, openBrowserApp } from '../support/browser-app.js';
import { STUB_PROVIDER, writeClaw } from '../support/manifest.js';

const server = path.join(APP_DIR, 'test/fixtures/mcp/client-requests-server.mjs');
const skipReason = browserSkipReason('the MCP elicitation suite');

describe.skipIf(skipReason !== null)('an MCP server form in the browser', () => {
  let fixture: AssistantFixture;
  let app: BrowserApp;
  let page: Page;
  let manifestDir = '';

  beforeAll(async () => {
    // Supervised, every tool allowed: a call with side effects is approved first.
    manifestDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-e2e-elicit-'));
    const manifest = await writeClaw(manifestDir, {
      name: 'pincer',
      identity: { name: 'pincer', personality: 'Test.', autonomy: 'supervised' },
      providers: [{ ...STUB_PROVIDER, name: 'none', model: 'm' }],
      sandbox: { name: 'box', level: 'process' },
      policies: [{ name: 'p', rules: [{ id: 'all', action: 'allow', scope: 'all' }] }],
    });
    fixture = await scriptedAssistant({ delayMs: 1, askForInput: true, manifest });
    const { servers } = await fixture.assistant.mcpServers.add({
      name: 'asker',
      command: process.execPath,
      args: [server],
    });
    expect(servers[0]?.tools).toContain('mcp/asker/signup');
    app = await openBrowserApp({ assistant: fixture.assistant });
    ({ page } = app);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await fixture?.close();
    await rm(manifestDir, { recursive: true, force: true });
  });

  it('fills the form, sees a refusal keep what was typed, and the tool result', async () => {
    const composer = page.getByRole('textbox', { name: 'Message' });
    await composer.fill('sign me up');
    await composer.press('Enter');
    // The default manifest is supervised: the MCP tool is approved first.
    const approval = page
      .getByRole('complementary', { name: 'Approvals' })
      .getByTestId('approval-card')
      .first();
    await approval.waitFor({ timeout: 30_000 });
    await approval
      .getByRole('button', { name: /^Approve/ })
      .first()
      .click();

    const card = page.locator('.transcript').getByRole('form', { name: /MCP server asker asks/ });
    await card.waitFor({ timeout: 30_000 });
    // The server's words as text: its markup and markdown link are shown, not obeyed.
    const message = card.getByTestId('input-message');
    expect(await message.textContent()).toBe(
      'Sign up for the <b>newsletter</b> [here](javascript:alert(1))',
    );
    expect(await message.locator('a, b').count()).toBe(0);
    // One control per field, by its label; the required ones are marked.
    const name = card.getByRole('textbox', { name: /^Full name/ });
    const email = card.getByRole('textbox', { name: /^Email/ });
    expect(await name.getAttribute('aria-required')).toBe('true');
    expect(await card.getByRole('spinbutton', { name: 'Age' }).getAttribute('max')).toBe('150');
    expect(await card.getByText('In years').count()).toBe(1);
    const subscribe = card.getByRole('checkbox', { name: 'Subscribe' });
    expect(await subscribe.isChecked()).toBe(true);
    expect(await card.getByRole('combobox', { name: 'Favourite colour' }).count()).toBe(1);

    // Incomplete: refused with the reasons; the form stays, with what was typed.
    await email.fill('not-an-email');
    await card.getByRole('button', { name: 'Submit' }).click();
    const errors = card.getByRole('alert');
    await errors.waitFor();
    expect(await errors.textContent()).toMatch(/name is required/);
    expect(await errors.textContent()).toMatch(/email must match format "email"/);
    expect(await email.inputValue()).toBe('not-an-email');
    expect(await fixture.assistant.pendingInputs()).toHaveLength(1);

    // Completed from the keyboard: type, tab, space, Enter submits.
    await name.fill('Ada Lovelace');
    await email.fill('ada@example.org');
    await card.getByRole('spinbutton', { name: 'Age' }).fill('36');
    await subscribe.focus();
    await page.keyboard.press('Space');
    await card.getByRole('combobox', { name: 'Favourite colour' }).selectOption({ label: 'Green' });
    await email.press('Enter');
    await card.waitFor({ state: 'detached', timeout: 30_000 });
    await page
      .locator('.transcript')
      .getByText(
        'the tool said elicitation: accept {"name":"Ada Lovelace","email":"ada@example.org","age":36,"subscribe":false,"colour":"g"}',
      )
      .waitFor({ timeout: 30_000 });
    expect(fixture.assistant.pendingInputs()).toEqual([]);
  }, 90_000);
});
