/**
 * Settings → Skills & memory in Chromium through the real gateway: a SKILL.md chosen in the file
 * picker is registered and listed, turned off and on again; a malformed one shows its reason;
 * a note typed there is remembered and found by the search beside it.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  browserSkipReason,
  openBrowserApp,
  type ScriptedBrowserApp,
} from '../support/browser-app.js';

const shots = path.join(import.meta.dirname, 'screenshots');
const skipReason = browserSkipReason('the skills and memory settings suite');

const skillFile = (text: string) => ({
  name: 'SKILL.md',
  mimeType: 'text/markdown',
  buffer: Buffer.from(text),
});

describe.skipIf(skipReason !== null)('Settings → Skills & memory in the browser', () => {
  let app: ScriptedBrowserApp;
  let page: Page;

  beforeAll(async () => {
    app = await openBrowserApp({ scripted: { delayMs: 1 } });
    ({ page } = app);
    await page.getByRole('tab', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Skills & memory' }).click();
  }, 60_000);
  afterAll(() => app?.close());

  it('adds a skill from a file, turns it off and on, and shows why a bad file is refused', async () => {
    const skills = page.getByRole('list', { name: 'Skills' });
    await page
      .getByLabel('Skill file')
      .setInputFiles(
        skillFile('---\nname: summarise\ndescription: Three bullets.\n---\nWrite three bullets.\n'),
      );
    await expect
      .poll(() => page.getByTestId('skill-status').textContent())
      .toBe('summarise: added');
    await skills.getByText('summarise').waitFor();
    expect(await skills.getByText('Three bullets.').count()).toBe(1);

    await page.getByRole('button', { name: 'Disable summarise' }).click();
    await skills.getByText('disabled').waitFor();
    await page.getByRole('button', { name: 'Enable summarise' }).click();
    await expect.poll(() => skills.getByText('disabled').count()).toBe(0);

    await page.getByLabel('Skill file').setInputFiles(skillFile('just some text'));
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/front matter/);
    expect(await skills.getByRole('listitem').count()).toBe(1);
  }, 60_000);

  it('remembers a typed note that the memory search then finds', async () => {
    const box = page.getByRole('textbox', { name: 'Something to remember' });
    await box.fill('The spare key is under the blue flowerpot.');
    await page.getByRole('button', { name: 'Remember', exact: true }).click();
    await expect
      .poll(() => page.getByTestId('memory-status').textContent())
      .toMatch(/^Remembered as note:/);
    expect(await box.inputValue()).toBe('');
    await page.getByRole('textbox', { name: 'Search memory' }).fill('spare key flowerpot');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page
      .getByRole('list', { name: 'Memory results' })
      .getByText('blue flowerpot', { exact: false })
      .waitFor();
    await mkdir(shots, { recursive: true });
    await page.screenshot({ path: path.join(shots, 'skills-memory.png') });
  }, 60_000);
});
