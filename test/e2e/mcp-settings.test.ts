/**
 * Settings → MCP servers in Chromium through the real gateway: a stdio server added from the
 * form starts (under the sandbox) and shows its tools; turning it off empties them, on brings
 * them back; a server that cannot start shows its error; Remove takes it out of the list.
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_DIR } from '../support/assistant-harness.js';
import {
  browserSkipReason,
  openBrowserApp,
  type ScriptedBrowserApp,
} from '../support/browser-app.js';

const server = path.join(APP_DIR, 'test/fixtures/mcp/stdio-server.mjs');
const skipReason = browserSkipReason('the MCP settings suite');

describe.skipIf(skipReason !== null)('Settings → MCP servers in the browser', () => {
  let app: ScriptedBrowserApp;
  let page: Page;
  const row = (name: string) => page.getByRole('listitem', { name: `MCP server ${name}` });

  beforeAll(async () => {
    app = await openBrowserApp({ scripted: { delayMs: 1 } });
    ({ page } = app);
  }, 60_000);
  afterAll(() => app?.close());

  it('adds a server, shows its tools, turns it off and on, shows an error, removes one', async () => {
    await page.getByRole('tab', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'MCP servers' }).click();
    await page.getByText('No MCP servers yet.').waitFor();

    await page.getByRole('textbox', { name: 'Server name' }).fill('local');
    await page
      .getByRole('textbox', { name: 'Command or URL' })
      .fill(`"${process.execPath}" "${server}"`);
    await page.getByRole('button', { name: 'Add' }).click();
    await row('local').getByText('mcp/local/echo', { exact: false }).waitFor({ timeout: 30_000 });
    expect(await row('local').getByRole('status').textContent()).toBe('ready');

    const toggle = row('local').getByRole('checkbox', { name: 'Enable local' });
    await toggle.click();
    await expect.poll(() => row('local').getByRole('status').textContent()).toBe('off');
    expect(await toggle.isChecked()).toBe(false);
    expect(await row('local').getByText('mcp/local/echo', { exact: false }).count()).toBe(0);
    await toggle.click();
    await row('local').getByText('mcp/local/echo', { exact: false }).waitFor({ timeout: 30_000 });

    await page.getByRole('textbox', { name: 'Server name' }).fill('broken');
    await page
      .getByRole('textbox', { name: 'Command or URL' })
      .fill(`"${process.execPath}" /nonexistent/server.mjs`);
    await page.getByRole('button', { name: 'Add' }).click();
    await row('broken').waitFor({ timeout: 30_000 });
    expect(await row('broken').getByRole('status').textContent()).not.toBe('ready');
    expect(await row('broken').locator('.mcp-error').textContent()).toBeTruthy();

    await row('broken').getByRole('button', { name: 'Remove' }).click();
    await expect.poll(() => row('broken').count()).toBe(0);
    expect(await row('local').count()).toBe(1);
  }, 90_000);
});
