/**
 * Approvals that show risk, in Chromium through the real gateway and the real policy: an edit
 * shows its diff against the file as it is and the full path; a command shows its command line,
 * folder and sandbox; `rm -rf` is marked destructive with a secondary-styled Approve that no key
 * answers; approval keys do nothing while the focus is in a text field.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Assistant, createAssistant } from '../../src/main/core/assistant/index.js';
import { viaProvider } from '../../src/main/core/models/access.js';
import type { ModelRequest } from '../../src/main/core/models/types.js';
import { APP_DIR } from '../support/assistant-harness.js';
import { type BrowserApp, browserSkipReason, openBrowserApp } from '../support/browser-app.js';
import { ScriptedProvider, type ScriptedReply } from '../support/scripted-provider.js';
import { vaultSecrets } from '../support/secrets.js';

const shots = path.resolve(import.meta.dirname, 'screenshots');
const skipReason = browserSkipReason('the approvals suite');

/** What the scripted model calls, by the first word of the message. */
function script(request: ModelRequest): ScriptedReply {
  const last = request.messages.at(-1);
  if (last?.content.some((b) => b.type === 'tool_result')) return { text: 'Done.' };
  const block = last?.content.find((b) => b.type === 'text');
  const asked = block?.type === 'text' ? block.text : '';
  if (asked.startsWith('edit')) {
    return {
      toolCalls: [
        {
          name: 'fs/edit',
          input: { path: 'notes/todo.md', old_text: '- buy milk', new_text: '- buy oat milk' },
        },
      ],
    };
  }
  if (asked.startsWith('clean')) {
    return { toolCalls: [{ name: 'sys/exec', input: { command: 'rm', args: ['-rf', 'build'] } }] };
  }
  if (asked.startsWith('look')) {
    return { toolCalls: [{ name: 'sys/exec', input: { command: 'ls', cwd: '..' } }] };
  }
  if (asked.startsWith('list')) {
    return {
      toolCalls: [{ name: 'sys/exec', input: { command: 'ls', args: ['-la', 'my notes'] } }],
    };
  }
  return { text: 'Hello.' };
}

describe.skipIf(skipReason !== null)('approvals that show risk', () => {
  let dataDir: string;
  let workspace: string;
  let assistant: Assistant;
  let app: BrowserApp;
  let page: Page;

  const composer = () => page.getByRole('textbox', { name: 'Message' });
  const panelCard = () =>
    page.getByRole('complementary', { name: 'Approvals' }).getByTestId('approval-card').first();
  async function ask(text: string) {
    await composer().fill(text);
    await composer().press('Enter');
    await panelCard().waitFor();
  }

  beforeAll(async () => {
    await mkdir(shots, { recursive: true });
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-e2e-risk-'));
    workspace = path.join(dataDir, 'workspace', 'pincer');
    await mkdir(path.join(workspace, 'notes'), { recursive: true });
    await writeFile(path.join(workspace, 'notes/todo.md'), '# Todo\n\n- call mum\n- buy milk\n');
    assistant = await createAssistant({
      dataDir,
      appDir: APP_DIR,
      model: {
        kind: 'fixed',
        access: viaProvider(new ScriptedProvider(script), 'scripted'),
        label: 'scripted/test',
        scripted: true,
      },
      secrets: vaultSecrets(dataDir, 'risk'),
    });
    app = await openBrowserApp({ assistant, viewport: { width: 1280, height: 860 } });
    ({ page } = app);
  });
  afterAll(async () => {
    await app?.close();
    await assistant?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('an edit shows the full path and a diff against the file as it is', async () => {
    await ask('edit my todo list');
    const card = panelCard();
    expect(await card.getByTestId('approval-path').textContent()).toMatch(
      /workspace\/pincer\/notes\/todo\.md$/,
    );
    const diff = card.getByTestId('approval-diff');
    expect(await diff.locator('.diff-del').allTextContents()).toEqual(['-- buy milk\n']);
    expect(await diff.locator('.diff-add').allTextContents()).toEqual(['+- buy oat milk\n']);
    expect(await diff.textContent()).toContain(' - call mum');
    await page.screenshot({ path: path.join(shots, 'approval-diff.png') });
    // The keys do nothing while the focus is in the message box (Ctrl+Backspace edits the text).
    await composer().fill('typing here');
    await composer().press('Control+Enter');
    await composer().press('Control+Backspace');
    await composer().press('Alt+a');
    expect(await panelCard().isVisible()).toBe(true);
    expect(await readFile(path.join(workspace, 'notes/todo.md'), 'utf8')).toContain('- buy milk');
    // Out of the text field, Ctrl+Enter approves the conversation's waiting call.
    await composer().fill('');
    await page.locator('.transcript').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('Control+Enter');
    await panelCard().waitFor({ state: 'detached' });
    // The edit runs in the sandbox after the approval: seconds on a busy machine.
    await expect
      .poll(() => readFile(path.join(workspace, 'notes/todo.md'), 'utf8'), { timeout: 30_000 })
      .toContain('- buy oat milk');
  });

  it('a command shows its command line, folder and sandbox', async () => {
    await ask('list my notes');
    const card = panelCard();
    expect(await card.getByTestId('approval-command').textContent()).toBe("$ ls -la 'my notes'");
    expect(await card.getByTestId('approval-cwd').textContent()).toMatch(/workspace\/pincer$/);
    expect(await card.textContent()).toMatch(/sandbox \w+/);
    expect(await card.getByTestId('approval-risk').count()).toBe(0);
    expect(
      await card
        .getByRole('button', { name: /^Approve/ })
        .first()
        .getAttribute('class'),
    ).toBe('primary');
    // The session grant is offered for exactly the call shown, and says so.
    expect(await card.getByRole('button', { name: /for session/ }).textContent()).toBe(
      "Approve ls -la 'my notes' for session",
    );
    await card.getByRole('button', { name: /^Deny/ }).first().click();
    await card.waitFor({ state: 'detached' });
  });

  it('rm -rf is marked destructive: Approve is secondary and no key answers it', async () => {
    await ask('clean the build folder');
    const card = panelCard();
    expect(await card.getByTestId('approval-command').textContent()).toBe('$ rm -rf build');
    expect(await card.getByTestId('approval-risk').textContent()).toContain(
      'deletes files recursively (rm -r)',
    );
    const approve = card.getByRole('button', { name: /^Approve/ }).first();
    expect(await approve.getAttribute('class')).toBe('secondary');
    expect(await approve.textContent()).toBe('Approve');
    // Never for the session, whatever the tool's tier.
    expect(await card.getByRole('button', { name: /for session/ }).count()).toBe(0);
    await page.locator('.transcript').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('Control+Enter');
    expect(await card.isVisible()).toBe(true);
    expect(assistant.pendingApprovals()).toHaveLength(1);
    await card.getByRole('button', { name: /^Deny/ }).first().click();
    await card.waitFor({ state: 'detached' });
  });

  it('a command the preview marks risky (outside the workspace) is never approved for the session', async () => {
    await ask('look one folder up');
    const card = panelCard();
    expect(await card.getByTestId('approval-risk').textContent()).toContain(
      'runs outside the workspace',
    );
    expect(await card.getByRole('button', { name: /for session/ }).count()).toBe(0);
    const [pending] = assistant.pendingApprovals();
    expect(pending?.sessionApprovable).toBe(false);
    // Not through the API either: the key a renderer might send is refused.
    expect(assistant.resolveApproval(pending?.id ?? '', 'approve-for-session')).toBe(
      'not_session_approvable',
    );
    await card.getByRole('button', { name: /^Deny/ }).first().click();
    await card.waitFor({ state: 'detached' });
  });
});
