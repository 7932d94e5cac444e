/**
 * `pincer gateway` as a real child process on the tiny GGUF (real node-llama-cpp inference,
 * random weights): the UI in Chromium sends a message and the local model's reply arrives over
 * the WebSocket. What this proves is the whole path, not the reply's sense.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyGguf } from '../fixtures/tiny-gguf.js';
import { chromiumMissingReason, launchChromium } from '../support/browser.js';
import { builtCli, repoRoot } from '../support/cli-run.js';

const skipReason =
  chromiumMissingReason() ??
  (existsSync(builtCli) && existsSync(path.join(repoRoot, 'out/renderer/index.html'))
    ? null
    : 'CLI or renderer not built: run `npm run build`');
if (skipReason) console.warn(`[e2e] skipping the local-model gateway test: ${skipReason}`);

describe.skipIf(skipReason !== null)('pincer gateway on the tiny GGUF, in Chromium', () => {
  let home: string;
  let child: ChildProcess;
  let browser: Browser;
  let openUrl: string;
  let output = '';

  beforeAll(async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'pincer-gw-local-'));
    const model = path.join(home, 'tiny.gguf');
    await writeTinyGguf(model);
    child = spawn(
      process.execPath,
      [
        builtCli,
        'gateway',
        '--model-path',
        model,
        '--threads',
        '2',
        '--max-tokens',
        '24',
        '--temperature',
        '0',
        '--tools',
        '',
      ],
      {
        env: { ...process.env, PINCER_HOME: home, PINCER_KEYCHAIN: 'off', PINCER_MODEL: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    openUrl = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL printed:\n${output}`)), 30_000);
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /Open: (http:\/\/127\.0\.0\.1:\d+\/#token=\S+)/.exec(output);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      child.once('exit', (code) => reject(new Error(`gateway exited with ${code}:\n${output}`)));
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    await rm(home, { recursive: true, force: true });
  });

  it('prints the loopback URL with the token once, and the model it runs', () => {
    expect(output).toContain('model: local/tiny.gguf');
    expect(output.split(openUrl.split('#token=')[1] ?? 'x').length).toBe(2);
  });

  it('sends a message and shows the local model’s streamed reply', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const deltas: string[] = [];
    page.on('websocket', (ws) =>
      ws.on('framereceived', (frame) => {
        const text = String(frame.payload);
        if (text.includes('"type":"model.delta"')) deltas.push(text);
      }),
    );
    await page.goto(openUrl);
    await page.getByText('connected · gateway').waitFor();
    await expect.poll(() => page.getByTestId('status-model').textContent()).toBe('local/tiny.gguf');
    await page.getByRole('textbox', { name: 'Message' }).fill('hello tiny model');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await page.getByRole('button', { name: 'Send' }).waitFor({ timeout: 50_000 });
    // The run finished and the history came back from the core: user message and the reply.
    await expect
      .poll(() => page.getByTestId('user-message').textContent())
      .toBe('hello tiny model');
    await expect.poll(() => page.getByTestId('assistant-message').count()).toBe(1);
    expect(await page.getByTestId('run-notice').count()).toBe(0);
    // Greedy decoding of seeded weights: the same tokens every time, streamed as deltas.
    expect(deltas.length).toBeGreaterThan(0);
    expect((await page.getByTestId('assistant-message').textContent())?.length).toBeGreaterThan(0);
    await page.getByRole('tab', { name: 'Runs' }).click();
    await expect.poll(() => page.locator('.run-row').first().textContent()).toContain('completed');
    await page.close();
  }, 90_000);
  it('Settings → Model behaviour shows the local model’s bound and the memory a context size needs', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(openUrl);
    await page.getByText('connected · gateway').waitFor();
    await page.getByRole('tab', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Model behaviour' }).click();
    const facts = page.getByTestId('context-facts');
    // Loaded by the message above, at the tiny model's trained 2048 tokens.
    await expect.poll(() => facts.textContent()).toContain('Loaded now with 2048 tokens.');
    expect(await facts.textContent()).toMatch(
      /About [\d.]+ [KM]B of memory \(model [\d.]+ [KM]B, context 512 KB\)/,
    );
    await page.getByRole('combobox', { name: 'Context size' }).selectOption('8192');
    await expect
      .poll(() => facts.textContent())
      .toContain('This model was trained for 2048 tokens: it gets 2048.');
    await page.getByRole('button', { name: 'Save' }).click();
    // Kept by the core: a fresh page shows the saved size.
    await page.reload();
    await page.getByText('connected · gateway').waitFor();
    await page.getByRole('tab', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Model behaviour' }).click();
    await expect
      .poll(() => page.getByRole('combobox', { name: 'Context size' }).inputValue())
      .toBe('8192');
    await page.close();
  }, 60_000);
  it('stops on SIGINT: the socket closes and the process exits with code 0', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    await expect(fetch(openUrl.split('#')[0] ?? '')).rejects.toThrow();
  }, 30_000);
});
