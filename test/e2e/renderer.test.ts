/**
 * The built renderer in Debian's Chromium, served by the real gateway over the real assistant
 * (database, policy, approvals, audit, runtime) answering with the scripted model. Screenshots of
 * the main screens land in test/e2e/screenshots/ (git-ignored; CI keeps them as artifacts).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/main/core/gateway/server.js';
import type { ModelCatalog } from '../../src/main/core/local/catalog.js';
import { RENDERER_CSP } from '../../src/shared/csp.js';
import { WireClose } from '../../src/shared/wire.js';
import { buildTinyGguf } from '../fixtures/tiny-gguf.js';
import type { AssistantFixture } from '../support/assistant-harness.js';
import {
  browserSkipReason,
  openBrowserApp,
  type ScriptedBrowserApp,
} from '../support/browser-app.js';
import { type SlowFileServer, startSlowFileServer } from '../support/slow-file-server.js';

const shots = path.resolve(import.meta.dirname, 'screenshots');
const skipReason = browserSkipReason('the renderer suite');

const TINY = buildTinyGguf();

function tinyCatalog(files: SlowFileServer): ModelCatalog {
  return {
    version: 1,
    defaultChat: 'tiny-test',
    defaultEmbedding: 'tiny-test',
    models: [
      {
        name: 'tiny-test',
        displayName: 'Tiny test model',
        kind: 'chat',
        url: files.url('tiny-test.gguf'),
        fileName: 'tiny-test.gguf',
        sizeBytes: TINY.length,
        sha256: createHash('sha256').update(TINY).digest('hex'),
        license: 'MIT',
        ramBytes: 1_000_000,
        contextLength: 512,
      },
    ],
  };
}

describe.skipIf(skipReason !== null)('the UI in Chromium through pincer gateway', () => {
  let browser: Browser;
  let gateway: Gateway;
  let fixture: AssistantFixture;
  let files: SlowFileServer;
  let app: ScriptedBrowserApp;
  let page: Page;
  /** Every WebSocket frame the core sent to the page. */
  const framesFromCore: string[] = [];

  const shot = (name: string) => page.screenshot({ path: path.join(shots, `${name}.png`) });
  const composer = () => page.getByRole('textbox', { name: 'Message' });
  const lastAssistant = () => page.getByTestId('assistant-message').last();
  /** Reads the DOM now, without Playwright's auto-wait (for sampling a stream). */
  const peek = (selector: string, attribute?: string) =>
    page.evaluate(
      ([sel, attr]) => {
        const all = document.querySelectorAll(sel);
        const el = all[all.length - 1];
        return el ? ((attr ? el.getAttribute(attr) : el.textContent) ?? '') : '';
      },
      [selector, attribute] as const,
    );
  async function send(text: string) {
    await composer().fill(text);
    await composer().press('Enter');
  }
  async function newChat() {
    await page.getByRole('button', { name: /New chat/ }).click();
    await expect.poll(() => page.getByTestId('assistant-message').count()).toBe(0);
  }

  beforeAll(async () => {
    await mkdir(shots, { recursive: true });
    files = await startSlowFileServer({ 'tiny-test.gguf': TINY });
    app = await openBrowserApp({
      scripted: { catalog: tinyCatalog(files) },
      viewport: { width: 1400, height: 860 },
      beforeLoad: (page) => {
        page.on('websocket', (ws) =>
          ws.on('framereceived', (f) => framesFromCore.push(String(f.payload))),
        );
      },
    });
    ({ page, fixture, gateway, browser } = app);
  });
  afterAll(async () => {
    await app?.close();
    await files?.close();
  });

  it('takes the token out of the address bar and shows the empty chat', async () => {
    expect(page.url()).toBe(`${gateway.origin}/`);
    expect(await page.getByRole('heading', { name: 'How can I help?' }).isVisible()).toBe(true);
    await expect.poll(() => page.getByTestId('status-model').textContent()).toBe('scripted/test');
  });

  it('streams a markdown reply with a code block', async () => {
    await send('hello there');
    // Sample the reply while it streams: it must grow through several partial states.
    const seen = new Set<string>();
    for (let i = 0; i < 400; i++) {
      const text = await peek('[data-testid="assistant-message"]');
      if (text) seen.add(text);
      if (text.includes('two') && (await peek('.composer button')) === 'Send') break;
      await page.waitForTimeout(15);
    }
    expect(seen.size).toBeGreaterThan(2);
    const reply = lastAssistant();
    await expect.poll(() => reply.locator('strong').textContent()).toBe('Pincer');
    expect(await reply.locator('figure.code-block code').textContent()).toContain(
      'const answer = 42;',
    );
    expect(await reply.locator('.code-lang').textContent()).toBe('ts');
    expect(await reply.locator('li').allTextContents()).toEqual(['one', 'two']);
    expect(await page.getByTestId('user-message').textContent()).toBe('hello there');
    // The session appears in the sidebar, titled by its first message.
    await expect
      .poll(() => page.locator('.session-row.active').textContent())
      .toContain('hello there');
    await expect
      .poll(() => page.getByTestId('status-tokens').textContent())
      .toMatch(/^\d+ in · \d+ out$/);
    await shot('chat');
  });

  it('shows markup in a reply as text: no element, no script, no javascript: link, no image', async () => {
    await newChat();
    await send('html please');
    const reply = lastAssistant();
    await expect.poll(() => reply.textContent()).toContain('[image: pic]');
    const markdown = reply.locator('.markdown');
    expect(await markdown.locator('img, script').count()).toBe(0);
    expect(await markdown.textContent()).toContain('<img src=x onerror="window.__pwned=1">');
    expect(await markdown.locator('a').count()).toBe(1);
    expect(await markdown.locator('a').getAttribute('href')).toBe('https://example.org/docs');
    expect(await markdown.locator('a').getAttribute('rel')).toBe('noreferrer noopener');
    expect(await markdown.getByText('click me').evaluate((el) => el.tagName)).toBe('SPAN');
    expect(
      await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned),
    ).toBeUndefined();
  });

  it('a guarded tool asks; approving in the panel runs it and the model sees the result', async () => {
    await newChat();
    await send('write a note');
    const panel = page.getByRole('complementary', { name: 'Approvals' });
    const card = panel.getByTestId('approval-card');
    await card.waitFor();
    expect(await card.textContent()).toContain('fs/write');
    expect(await card.locator('.tier-guarded').textContent()).toBe('guarded');
    expect(await card.textContent()).toContain('default/approve-filesystem-writes');
    // What the write does: the full path and the file it makes, as a diff.
    expect(await card.getByTestId('approval-path').textContent()).toMatch(
      /workspace\/pincer\/notes\/hello\.txt$/,
    );
    expect(await card.getByTestId('approval-diff').textContent()).toContain(
      '+hello from the UI test',
    );
    // The same request is also asked inline, under its tool card.
    expect(await page.locator('.tool-card [data-testid="approval-card"]').count()).toBe(1);
    await shot('chat-with-approval');
    await card
      .getByRole('button', { name: /^Approve/ })
      .first()
      .click();
    await expect.poll(() => lastAssistant().getByTestId('tool-status').textContent()).toBe('Done');
    await expect
      .poll(() => lastAssistant().textContent())
      .toContain('the tool said wrote 22 bytes');
    expect(await panel.count()).toBe(0);
    const written = path.join(fixture.dataDir, 'workspace', 'pincer', 'notes', 'hello.txt');
    expect(await readFile(written, 'utf8')).toBe('hello from the UI test');
  });

  it('denying with a reason tells the model, and the card says denied', async () => {
    await newChat();
    await send('write it again');
    const inline = page.locator('.tool-card [data-testid="approval-card"]');
    await inline.waitFor();
    await inline.getByRole('button', { name: 'Deny with reason…' }).click();
    await inline.getByLabel('Reason for denying (told to the model)').fill('not today');
    await inline.getByLabel('Reason for denying (told to the model)').press('Enter');
    await expect.poll(() => lastAssistant().textContent()).toContain('The write did not happen');
    expect(await lastAssistant().textContent()).toContain('not approved (ui: not today)');
    expect(await page.getByTestId('tool-status').last().textContent()).toBe('Denied');
    expect(await page.getByTestId('tool-card').last().textContent()).toContain(
      'answered by ui: not today',
    );
  });

  it('keyboard only: Alt+N, type, Enter, out of the text field, then Ctrl+Enter approves', async () => {
    await page.keyboard.press('Alt+N');
    await expect.poll(() => page.getByTestId('assistant-message').count()).toBe(0);
    await page.keyboard.type('write by keyboard');
    await page.keyboard.press('Enter');
    await page.getByRole('complementary', { name: 'Approvals' }).waitFor();
    // Approval keys do nothing while the focus is in the message box.
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => lastAssistant().textContent()).toContain('the tool said wrote');
  });

  it('a reload while a call waits for approval comes back to the same run', async () => {
    await newChat();
    await send('write after a reload');
    await page.locator('.tool-card [data-testid="approval-card"]').waitFor();
    await page.reload();
    // The live run is rebuilt from its events, and the approval is still waiting.
    const inline = page.locator('.tool-card [data-testid="approval-card"]');
    await inline.waitFor();
    expect(await page.getByTestId('user-message').last().textContent()).toBe(
      'write after a reload',
    );
    await inline
      .getByRole('button', { name: /^Approve/ })
      .first()
      .click();
    await expect.poll(() => lastAssistant().textContent()).toContain('the tool said wrote');
  });

  it('Escape cancels a reply mid-stream', async () => {
    await newChat();
    await send('slow story please');
    await expect.poll(() => lastAssistant().textContent()).toContain('word2');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('run-notice').last().textContent()).toBe('Stopped');
    const stopped = await lastAssistant().locator('.markdown').textContent();
    expect(stopped).not.toContain('word199');
    await page.waitForTimeout(400);
    expect(await lastAssistant().locator('.markdown').textContent()).toBe(stopped);
    expect(await page.getByRole('button', { name: 'Send' }).isVisible()).toBe(true);
  });

  it('a reload keeps the session and shows its history from the core', async () => {
    const sessions = await page.locator('.session-row').count();
    await page.reload();
    await expect
      .poll(() => page.getByTestId('connection').textContent())
      .toBe('connected · gateway');
    expect(await page.locator('.session-row').count()).toBe(sessions);
    await expect.poll(() => page.getByTestId('run-notice').last().textContent()).toBe('Stopped');
    await page.getByRole('button', { name: /^hello there/ }).click();
    await expect
      .poll(() => lastAssistant().locator('figure.code-block code').textContent())
      .toContain('const answer');
    await page.getByRole('button', { name: /^write a note/ }).click();
    await expect
      .poll(() => page.getByTestId('tool-card').first().textContent())
      .toContain('answered by ui');
    expect(await page.getByTestId('tool-status').first().textContent()).toBe('Done');
  });

  it("the tray's New chat opens an empty conversation here without making a session", async () => {
    await page.getByRole('button', { name: /^hello there/ }).click();
    await expect.poll(() => page.getByTestId('user-message').count()).toBeGreaterThan(0);
    const sessions = fixture.assistant.listSessions().length;
    fixture.assistant.requestNewChat();
    await page.getByRole('heading', { name: 'How can I help?' }).waitFor();
    expect(await page.getByTestId('user-message').count()).toBe(0);
    expect(fixture.assistant.listSessions().length).toBe(sessions);
  });

  it('sessions: branch from a reply, rename, delete', async () => {
    await page.getByRole('button', { name: /^hello there/ }).click();
    await lastAssistant().hover();
    await lastAssistant().getByRole('button', { name: 'Branch from here' }).click();
    await expect
      .poll(() => page.locator('.session-row.active').textContent())
      .toContain('hello there (branch)');
    await expect
      .poll(() => lastAssistant().locator('figure.code-block code').textContent())
      .toContain('const answer');
    // The copy links back to where it came from, and the link opens that conversation.
    const source = page.locator('.branch-source');
    expect(await source.textContent()).toBe('Branched from hello there');
    await source.getByRole('button', { name: 'hello there' }).click();
    await expect
      .poll(() => page.locator('.session-row.active').textContent())
      .not.toContain('(branch)');
    await page.getByRole('button', { name: /^hello there \(branch\)/ }).click();
    await expect
      .poll(() => page.locator('.session-row.active').textContent())
      .toContain('hello there (branch)');

    await page.getByRole('button', { name: 'Rename hello there (branch)' }).click();
    await page.getByLabel('Session title').fill('A copy');
    await page.getByLabel('Session title').press('Enter');
    await expect.poll(() => page.locator('.session-row.active').textContent()).toContain('A copy');

    await page.getByRole('button', { name: 'Delete A copy' }).click();
    await page
      .locator('.session-row', { hasText: 'A copy' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await expect.poll(() => page.locator('.session-row', { hasText: 'A copy' }).count()).toBe(0);
    expect(fixture.assistant.listSessions().some((s) => s.title === 'A copy')).toBe(false);
    await expect.poll(() => page.getByRole('heading', { name: 'How can I help?' }).count()).toBe(1);
  });

  it('the runs view shows a trace: steps, tool calls and the audit', async () => {
    await page.getByRole('tab', { name: 'Runs' }).click();
    await page.locator('.run-row', { hasText: 'write a note' }).click();
    const detail = page.locator('.run-detail');
    await expect.poll(() => detail.locator('.step').count()).toBe(3);
    expect(await detail.locator('.audit tbody tr').count()).toBeGreaterThanOrEqual(5);
    expect(await detail.textContent()).toContain('approval_resolved');
    await shot('runs');
  });

  it('pulls a model from a local file server with a moving progress bar', async () => {
    await page.getByRole('tab', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Models' }).click();
    const row = page.getByTestId('model-tiny-test');
    await row.getByRole('button', { name: 'Download' }).click();
    const values = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const value = await peek('[data-testid="model-tiny-test"] progress', 'value');
      if (value) values.add(value);
      if (
        (await peek('[data-testid="model-tiny-test"] [data-testid="pull-status"]')).includes(
          'verified',
        )
      )
        break;
      await page.waitForTimeout(20);
    }
    expect(values.size).toBeGreaterThan(1);
    await expect
      .poll(() => row.getByTestId('pull-status').textContent())
      .toBe('Downloaded and verified');
    await expect.poll(() => row.textContent()).toContain('installed');
    expect(existsSync(path.join(fixture.dataDir, 'models', 'tiny-test.gguf'))).toBe(true);
    // The computer's memory and GPU as the core found them, above the catalog.
    const gpu = await fixture.assistant.gpuMemory();
    await expect
      .poll(() => page.getByTestId('machine-fit').textContent())
      .toMatch(
        gpu
          ? new RegExp(`GPU: .+ \\(${gpu.backend}\\), [\\d.]+ [GM]B free of`)
          : /^This computer: [\d.]+ GB of memory · no supported GPU: local models run on the processor$/,
      );
    await shot('settings-models');
  });

  it('keys: names go in and are listed, values never come back', async () => {
    await page.getByRole('button', { name: 'Providers & keys' }).click();
    const fromCore = framesFromCore;
    await page.getByLabel('Key name').fill('E2E_TEST_KEY');
    await page.getByLabel('Key value').fill('sk-e2e-very-secret-value');
    await page.getByRole('button', { name: 'Save key' }).click();
    await expect
      .poll(() => page.getByRole('status').last().textContent())
      .toBe('Saved E2E_TEST_KEY');
    await page.locator('.secret-row', { hasText: 'E2E_TEST_KEY' }).waitFor();
    expect(await page.getByLabel('Key value').inputValue()).toBe('');
    // The value went in (the vault holds it) and never came back over the socket.
    expect((await fixture.assistant.secrets()).names.map((n) => n.name)).toContain('E2E_TEST_KEY');
    expect(fromCore.join('\n')).not.toContain('sk-e2e-very-secret-value');
    expect(fromCore.join('\n')).toContain('E2E_TEST_KEY');
    await shot('settings-keys');
  });

  it('dark theme and autonomy settings apply', async () => {
    await page.getByRole('button', { name: 'Appearance & keyboard' }).click();
    await page.getByRole('radio', { name: 'dark' }).click();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await page.getByRole('tab', { name: 'Chat' }).click();
    await page.locator('.session-open[title="hello there"]').click();
    await lastAssistant().locator('figure.code-block').waitFor();
    await shot('chat-dark');
    await page.getByRole('tab', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Autonomy & policies' }).click();
    await page.getByRole('radio', { name: /observer/ }).click();
    await expect.poll(() => fixture.assistant.policies().autonomy).toBe('observer');
    await expect.poll(() => page.getByRole('radio', { name: /observer/ }).isChecked()).toBe(true);
    await shot('settings-autonomy');
    await page.getByRole('radio', { name: /supervised/ }).click();
    await expect.poll(() => fixture.assistant.policies().autonomy).toBe('supervised');
    await page.getByRole('button', { name: 'Appearance & keyboard' }).click();
    // "system" follows the OS preference, and its changes while the page is open.
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.getByRole('radio', { name: 'system' }).click();
    await expect
      .poll(() => page.evaluate(() => document.documentElement.dataset.theme))
      .toBe('dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await expect
      .poll(() => page.evaluate(() => document.documentElement.dataset.theme))
      .toBe('light');
    await page.getByRole('radio', { name: 'light' }).click();
  });

  it('refuses forged WebSocket traffic: no token, a bad payload, a malformed frame', async () => {
    const outcome = await page.evaluate(async (token) => {
      const url = `ws://${location.host}/ipc`;
      const talk = (frames: string[]) =>
        new Promise<{ code: number; replies: string[] }>((resolve) => {
          const ws = new WebSocket(url);
          const replies: string[] = [];
          ws.onopen = () => {
            for (const frame of frames) ws.send(frame);
          };
          ws.onmessage = (event) => {
            replies.push(String(event.data));
            if (replies.some((r) => r.includes('"result"'))) ws.close(1000);
          };
          ws.onclose = (event) => resolve({ code: event.code, replies });
        });
      const noToken = await talk([
        JSON.stringify({ type: 'call', id: 1, channel: 'sessions.list', request: {} }),
      ]);
      const wrongToken = await talk([JSON.stringify({ type: 'hello', token: 'forged' })]);
      const badPayload = await talk([
        JSON.stringify({ type: 'hello', token }),
        JSON.stringify({ type: 'call', id: 7, channel: 'chat.send', request: { text: 42 } }),
      ]);
      const unknown = await talk([
        JSON.stringify({ type: 'hello', token }),
        JSON.stringify({
          type: 'call',
          id: 8,
          channel: 'fs.read',
          request: { path: '/etc/passwd' },
        }),
      ]);
      const malformed = await talk([
        JSON.stringify({ type: 'hello', token }),
        '{"type":"call","id":"x"}',
      ]);
      return { noToken, wrongToken, badPayload, unknown, malformed };
    }, gateway.token);
    expect(outcome.noToken).toEqual({ code: WireClose.unauthorized, replies: [] });
    expect(outcome.wrongToken).toEqual({ code: WireClose.unauthorized, replies: [] });
    expect(outcome.badPayload.replies.at(-1)).toContain('"code":"invalid_request"');
    expect(outcome.unknown.replies.at(-1)).toContain('"code":"unknown_channel"');
    expect(outcome.malformed.code).toBe(WireClose.badFrame);
  });

  it('without the token: not connected, with the way to connect', async () => {
    const other = await browser.newPage();
    await other.goto(`${gateway.origin}/`);
    await expect.poll(() => other.getByTestId('connection').textContent()).toBe('not connected');
    expect(await other.getByRole('status').textContent()).toContain('npx pincer gateway');
    await other.goto(`${gateway.origin}/#token=not-the-token`);
    await expect.poll(() => other.getByTestId('connection').textContent()).toBe('not connected');
    await other.close();
  });

  it('enforces the strict CSP: an injected inline script does not run', async () => {
    const other = await browser.newPage();
    const violations: string[] = [];
    other.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) violations.push(message.text());
    });
    const response = await other.goto(`${gateway.origin}/`);
    expect(response?.headers()['content-security-policy']).toBe(RENDERER_CSP);
    const meta = await other
      .locator('meta[http-equiv="Content-Security-Policy"]')
      .getAttribute('content');
    expect(meta).toBe(RENDERER_CSP);
    const ran = await other.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.__injected = true;';
      document.head.append(script);
      return (window as unknown as Record<string, unknown>).__injected === true;
    });
    expect(ran).toBe(false);
    await expect.poll(() => violations.length).toBeGreaterThan(0);
    await other.close();
  });
  // Last: it stops the gateway.
  it('says so when the core goes away', async () => {
    await gateway.close();
    await page
      .getByRole('alert')
      .filter({ hasText: 'connection to the Pincer core was lost' })
      .waitFor();
    expect(await page.getByTestId('connection').textContent()).toBe('not connected');
  });
});
