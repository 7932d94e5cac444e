/**
 * Sub-agents in the Runs view, in Chromium through the real gateway: a run whose first turn calls
 * agents/delegate shows its child nested under it while the child is still running (held at an
 * approval), then with its outcome, tokens and the parent's total; the tree folds, and the
 * parent's "Sub-agents" list opens the child.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/main/core/models/types.js';
import type { AssistantFixture } from '../support/assistant-harness.js';
import {
  browserSkipReason,
  openBrowserApp,
  type ScriptedBrowserApp,
} from '../support/browser-app.js';
import { STUB_PROVIDER, writeClaw } from '../support/manifest.js';
import type { ScriptedReply } from '../support/scripted-provider.js';

const skipReason = browserSkipReason('the run tree suite');

const BRIEF = 'Summarize the quarterly notes';

/** The parent delegates, then reads the answer; the child writes a note (which asks), then answers. */
function delegatingScript(request: ModelRequest): ScriptedReply {
  const child = request.system?.includes('You are a sub-agent') === true;
  const answered = request.messages.at(-1)?.content.some((b) => b.type === 'tool_result');
  if (child) {
    return answered
      ? { text: 'Three bullets.', usage: { inputTokens: 20, outputTokens: 4 } }
      : {
          toolCalls: [{ name: 'memory/note', input: { text: 'quarterly notes read' } }],
          usage: { inputTokens: 40, outputTokens: 8 },
        };
  }
  return answered
    ? { text: 'The sub-agent is done.', usage: { inputTokens: 150, outputTokens: 30 } }
    : {
        toolCalls: [{ name: 'agents/delegate', input: { goal: BRIEF, tools: ['memory/*'] } }],
        usage: { inputTokens: 100, outputTokens: 20 },
      };
}

describe.skipIf(skipReason !== null)('sub-agents in the Runs view', () => {
  let fixture: AssistantFixture;
  let app: ScriptedBrowserApp;
  let page: Page;
  let manifestDir = '';

  beforeAll(async () => {
    // Delegating is allowed; a memory note asks, which holds the child open while we look.
    manifestDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-e2e-runtree-'));
    const manifest = await writeClaw(manifestDir, {
      name: 'pincer',
      identity: { name: 'pincer', personality: 'Test.', autonomy: 'autonomous' },
      providers: [{ ...STUB_PROVIDER, name: 'none', model: 'm' }],
      sandbox: { name: 'box', level: 'process' },
      policies: [
        {
          name: 'p',
          rules: [
            {
              id: 'ask-memory',
              action: 'require-approval',
              scope: 'category',
              match: { category: 'memory' },
            },
            { id: 'all', action: 'allow', scope: 'all' },
          ],
        },
      ],
    });
    app = await openBrowserApp({
      scripted: {
        manifest,
        tools: 'memory/*,agents/delegate',
        script: delegatingScript,
      },
    });
    ({ page, fixture } = app);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await rm(manifestDir, { recursive: true, force: true });
  });

  it('nests the child under its parent live, with totals, folding, and a link that opens it', async () => {
    const composer = page.getByRole('textbox', { name: 'Message' });
    await composer.fill('delegate the summary');
    await composer.press('Enter');
    await page.getByRole('tab', { name: 'Runs' }).click();

    // The child's note waits for approval: the child (and its parent) are live now.
    await expect
      .poll(() => fixture.assistant.pendingApprovals().map((a) => a.call.name))
      .toEqual(['memory/note']);
    const approval = fixture.assistant.pendingApprovals()[0] as NonNullable<
      ReturnType<AssistantFixture['assistant']['pendingApprovals']>[0]
    >;
    const childId = approval.runId;
    const parentId = fixture.assistant.run(childId).run.parentRunId as string;
    expect(parentId).toMatch(/\S/);

    const parentItem = page.locator(`.runs-list li[data-run-id="${parentId}"]`);
    const childItem = parentItem.locator(`ul.run-children > li[data-run-id="${childId}"]`);
    await childItem.waitFor();
    expect(await childItem.locator('.run-goal').textContent()).toBe(`sub-agent · ${BRIEF}`);
    await expect.poll(() => childItem.locator('.badge').textContent()).toBe('running');
    expect(await parentItem.locator('.run-row .badge').first().textContent()).toBe('running');
    // Only the parent is a top-level row; the child is not listed a second time.
    expect(await page.locator(`.runs-list li[data-run-id="${childId}"]`).count()).toBe(1);

    fixture.assistant.resolveApproval(approval.id, 'approve', 'test');

    // The events of both runs update the rows: outcomes, tokens, and the parent's total.
    await expect.poll(() => childItem.locator('.badge').textContent()).toBe('completed');
    await expect
      .poll(() => parentItem.locator('.run-row .badge').first().textContent())
      .toBe('completed');
    await expect.poll(() => childItem.locator('.run-meta').textContent()).toContain('72 tok');
    await expect
      .poll(() => parentItem.locator(':scope > .run-line .run-meta').first().textContent())
      .toContain('300 tok');
    await expect
      .poll(() => parentItem.getByTestId('run-total').textContent())
      .toBe('with sub-agents: 372 tok · $0');

    // Folding hides the child; unfolding shows it again.
    await parentItem.getByRole('button', { name: 'Hide 1 sub-agent' }).click();
    await expect.poll(() => childItem.count()).toBe(0);
    await parentItem.getByRole('button', { name: 'Show 1 sub-agent' }).click();
    await childItem.waitFor();

    // The parent's detail lists its sub-agents; the link opens the child's trace.
    await parentItem.locator(':scope > .run-line .run-row').click();
    const detail = page.locator('.runs-detail');
    await expect.poll(() => detail.locator('h2').textContent()).toBe('delegate the summary');
    const subAgents = detail.getByRole('list', { name: 'Sub-agents' });
    expect(await subAgents.locator('li').count()).toBe(1);
    expect(await subAgents.locator('li').textContent()).toContain('completed');
    expect(await detail.getByTestId('run-detail-total').textContent()).toBe(
      'With sub-agents: 372 tok · $0',
    );
    await subAgents.getByRole('button', { name: BRIEF }).click();
    await expect.poll(() => detail.locator('h2').textContent()).toBe(BRIEF);
    expect(await childItem.locator('.run-row').getAttribute('aria-current')).toBe('true');
    expect(await detail.locator('.tool-card').count()).toBe(1);
    // And back up to the run that delegated it.
    await detail.getByRole('button', { name: 'the run that delegated it' }).click();
    await expect.poll(() => detail.locator('h2').textContent()).toBe('delegate the summary');
  });
});
