/**
 * The terminal dashboard rendered by Ink (ink-testing-library) against a real assistant with the
 * scripted model: in-process through the contract's dispatcher, and attached to a real gateway
 * over its WebSocket beside a second client standing for the browser UI.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { ActiveTools, AgentsList } from '../../../src/main/cli/tui/AgentsPanel.js';
import { ApprovalPrompt, previewLines } from '../../../src/main/cli/tui/ApprovalPrompt.js';
import { DashboardApp } from '../../../src/main/cli/tui/Dashboard.js';
import { PASTE_END, PASTE_START } from '../../../src/main/cli/tui/keys.js';
import { applyEvent, emptyState } from '../../../src/main/cli/tui/state.js';
import {
  type CoreLink,
  connectGateway,
  inProcessLink,
} from '../../../src/main/core/gateway/client.js';
import { startAssistantGateway } from '../../../src/main/core/gateway/server.js';
import { createCoreHandlers } from '../../../src/main/core/ipc/handlers.js';
import type { AssistantEvent, RunSummary } from '../../../src/shared/ipc.js';
import { type AssistantFixture, scriptedAssistant } from '../../support/assistant-harness.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function inProcess(delayMs = 20): Promise<{ fixture: AssistantFixture; link: CoreLink }> {
  const fixture = await scriptedAssistant({ delayMs });
  cleanups.push(() => fixture.close());
  const link = inProcessLink(
    createCoreHandlers({ assistant: fixture.assistant, electronVersion: null }),
    (listener) => fixture.assistant.subscribe(listener),
  );
  return { fixture, link };
}

type Rendered = ReturnType<typeof render>;

function show(link: CoreLink, size = { columns: 120, rows: 40 }): Rendered {
  const ui = render(<DashboardApp link={link} />);
  resize(ui, size);
  cleanups.push(() => ui.unmount());
  return ui;
}

function resize(ui: Rendered, { columns, rows }: { columns: number; rows: number }) {
  Object.defineProperty(ui.stdout, 'columns', { value: columns, configurable: true });
  Object.defineProperty(ui.stdout, 'rows', { value: rows, configurable: true });
  ui.stdout.emit('resize');
}

/** Polls the newest frame until `test` holds; the deadline only catches a hang. */
async function frameWhere(ui: Rendered, test: (frame: string) => boolean, what: string) {
  const deadline = Date.now() + 45_000;
  while (Date.now() < deadline) {
    const frame = ui.lastFrame() ?? '';
    if (test(frame)) return frame;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no frame with ${what}; last frame:\n${ui.lastFrame()}`);
}

const has = (text: string) => (frame: string) => frame.includes(text);

async function type(ui: Rendered, text: string) {
  ui.stdin.write(text);
  await new Promise((resolve) => setTimeout(resolve, 30));
}

/** Typed and sent: Enter arrives on its own (in one chunk with the text it would be a paste). */
async function send(ui: Rendered, text: string) {
  await type(ui, text);
  await type(ui, '\r');
}

describe('terminal dashboard', { timeout: 120_000 }, () => {
  it('streams a reply as terminal Markdown: text first, the code block and list as they arrive', async () => {
    const { link } = await inProcess(30);
    const ui = show(link);
    await frameWhere(ui, has('Model: scripted/test'), 'the status bar');
    await send(ui, 'hello there');
    await frameWhere(ui, has('you'), 'the message sent');
    const partial = await frameWhere(ui, has('Hello from Pincer'), 'the first words');
    expect(partial).not.toContain('• two');
    const done = await frameWhere(
      ui,
      (f) => f.includes('• two') && !f.includes('replying'),
      'the end',
    );
    expect(done).toContain('const answer = 42;');
    expect(done).not.toContain('**Pincer**'); // rendered bold, not shown as markup
    expect(done).not.toContain('```');
    expect(ui.frames.length).toBeGreaterThan(3);
  });

  it('sends a multi-line paste as one message, bracketed or not', async () => {
    const { fixture, link } = await inProcess(1);
    const ui = show(link);
    await frameWhere(ui, has('Model:'), 'the first frame');
    await type(ui, 'first line\rsecond line\rthird line');
    await frameWhere(ui, has('third line'), 'the pasted text in the input');
    await type(ui, '\r');
    await frameWhere(ui, has('• two'), 'the reply');
    await type(ui, `${PASTE_START}alpha\rbeta${PASTE_END}`);
    await type(ui, '\r');
    await frameWhere(ui, (f) => f.split('• two').length === 3, 'the second reply');
    const [session] = await fixture.assistant.listSessions();
    const history = await fixture.assistant.history(session?.id ?? '');
    const sent = history.messages
      .filter((m) => m.role === 'user')
      .map((m) => m.blocks.map((b) => (b.type === 'text' ? b.text : '')).join(''));
    expect(sent).toEqual(['first line\nsecond line\nthird line', 'alpha\nbeta']);
  });

  it('shows escape sequences from the model as visible characters, never raw', async () => {
    const { link } = await inProcess(1);
    const ui = show(link);
    await frameWhere(ui, has('Model:'), 'the first frame');
    await send(ui, 'escape please');
    const frame = await frameWhere(ui, has('evil'), 'the hostile reply');
    const all = ui.frames.join('');
    expect(all).not.toContain('\x1b]52');
    expect(all).not.toContain('\x1b[2J');
    expect(all).not.toContain('\u202e');
    expect(all).not.toContain('\r');
    expect(frame).toContain('␛]52;c;cm0gLXJmIH4=␇');
    expect(frame).toContain('over␍written');
  });

  it('lays out at 80x24 and 200x60: nothing wider or taller than the terminal', async () => {
    const { link } = await inProcess(1);
    const ui = show(link, { columns: 80, rows: 24 });
    await send(ui, 'hello');
    const measure = (frame: string) => ({
      rows: frame.split('\n').length,
      columns: Math.max(...frame.split('\n').map((line) => [...line].length)),
    });
    const small = await frameWhere(ui, has('• two'), 'the reply at 80x24');
    expect(measure(small).rows).toBeLessThanOrEqual(24);
    expect(measure(small).columns).toBeLessThanOrEqual(80);
    expect(small).not.toContain('AGENTS'); // no room for the side panel
    // The status facts take two rows here rather than being cut off.
    for (const fact of ['Model:', 'Tokens:', 'Cost:', 'Latency:', 'Sandbox:']) {
      expect(small).toContain(fact);
    }
    resize(ui, { columns: 200, rows: 60 });
    const large = await frameWhere(ui, has('AGENTS'), 'the side panel at 200x60');
    expect(measure(large).rows).toBeLessThanOrEqual(60);
    expect(measure(large).columns).toBeLessThanOrEqual(200);
    expect(large).toContain('[COMPLETED]');
    expect(large).toContain('const answer = 42;');
  });

  it('shows tokens against the model window, cost, latency and the sandbox backend', async () => {
    const { fixture, link } = await inProcess(1);
    const ui = show(link);
    const first = await frameWhere(ui, has('Tokens: 0/8,192 (0%)'), 'the window before a turn');
    expect(first).toMatch(/Sandbox: (bwrap|seatbelt|process)/);
    expect(first).toContain('Cost: $0'); // the scripted model is priced: it costs nothing
    expect(first).toContain('Latency: –');
    await send(ui, 'hello');
    const after = await frameWhere(
      ui,
      (f) => f.includes('• two') && !/Tokens: 0\//.test(f),
      'the context used by the turn',
    );
    const [, used] = after.match(/Tokens: ([\d,]+)\/8,192 \((\d+)%\)/) ?? [];
    const runs = fixture.assistant.listRuns({ limit: 1 });
    // The last model call's input plus what it wrote.
    expect(Number(used?.replace(/,/g, ''))).toBeGreaterThan(0);
    expect(runs[0]?.inputTokens).toBeGreaterThan(0);
    expect(after).toMatch(/Latency: \d+(\.\d)? m?s/);
  });

  it('edits at the cursor and recalls what was sent with Up and Down', async () => {
    const { fixture, link } = await inProcess(1);
    const ui = show(link);
    await frameWhere(ui, has('Model:'), 'the first frame');
    await type(ui, 'hllo world');
    await type(ui, '\x1b[H'); // Home
    await type(ui, '\x1b[C'); // Right
    await type(ui, 'e');
    await type(ui, '\x1b[F'); // End
    await type(ui, '!');
    await type(ui, '\x1b[D'); // Left
    await type(ui, '\x1b[D');
    await type(ui, '\x1b[3~'); // Delete: the "d" under the cursor
    await type(ui, '\x7f'); // Backspace: the "l" before it
    await frameWhere(ui, has('› hello wor!'), 'the edited line');
    await type(ui, '\r');
    await frameWhere(ui, has('• two'), 'the reply');
    await type(ui, 'draft');
    await type(ui, '\x1b[A'); // Up: the message sent, the draft kept aside
    await frameWhere(ui, has('› hello wor!'), 'the message recalled');
    await type(ui, '\x1b[B'); // Down: the draft again
    await frameWhere(ui, has('› draft'), 'the draft restored');
    await type(ui, '\x15'); // Ctrl+U
    await type(ui, '\x1b[A');
    await type(ui, '?');
    await type(ui, '\r');
    await frameWhere(ui, (f) => f.split('• two').length === 3, 'the second reply');
    const [session] = await fixture.assistant.listSessions();
    const sent = fixture.assistant
      .history(session?.id ?? '')
      .messages.filter((m) => m.role === 'user')
      .map((m) => m.blocks.map((b) => (b.type === 'text' ? b.text : '')).join(''));
    expect(sent).toEqual(['hello wor!', 'hello wor!?']);
  });

  it('approves for the session, then denies with a reason the model is told', async () => {
    const { fixture, link } = await inProcess(1);
    const ui = show(link);
    await frameWhere(ui, has('Model:'), 'the first frame');
    await send(ui, 'write a note');
    const asked = await frameWhere(ui, has('Approve?'), 'the approval prompt');
    expect(asked).toContain('[s] approve every call of this tool for session');
    expect(asked).toMatch(/risk: (safe|guarded|unsafe)/);
    // The write's preview: the file it creates and the line it adds.
    expect(asked).toMatch(/create \S*notes\/hello\.txt/);
    expect(asked).toMatch(/^\W*\+\S/m);
    // The preview's rows are counted into the layout: the frame still fits the terminal.
    expect(asked.split('\n').length).toBeLessThanOrEqual(40);
    await type(ui, 's');
    await frameWhere(ui, has('Done: the tool said'), 'the first write done');
    // The same call again in this session: not asked.
    await send(ui, 'write another');
    await frameWhere(ui, (f) => f.split('Done: the tool said').length === 3, 'the second write');
    expect(ui.frames.filter((f) => f.includes('Approve?')).length).toBeGreaterThan(0);
    expect(ui.lastFrame()).not.toContain('Approve?');
    // A new conversation asks again; this time the answer is no, with a reason.
    await send(ui, '/new');
    await frameWhere(ui, has('new conversation'), 'the new conversation');
    await send(ui, 'write a third');
    await frameWhere(ui, has('Approve?'), 'the prompt in the new conversation');
    await type(ui, 'n');
    await frameWhere(ui, has('Reason for the model'), 'the reason line');
    await type(ui, 'not today');
    await type(ui, '\r');
    const denied = await frameWhere(ui, has('The write did not happen'), 'the denial read back');
    expect(denied).toContain('not approved (ui: not');
    // The reason reached the model whole, as the denial's result.
    const sessions = fixture.assistant.listSessions();
    const third = sessions.find((s) => s.title.startsWith('write a third'));
    const calls = fixture.assistant.history(third?.id ?? '').toolCalls;
    expect(calls.at(-1)?.output).toContain('not approved (ui: not today)');
  });

  it('takes Shift+Y for a destructive call, as the UI takes a click, and shows why', async () => {
    const answers: string[] = [];
    const ui = render(
      <ApprovalPrompt
        approval={{
          id: 'apr_1',
          runId: 'run_1',
          sessionId: 'ses_1',
          call: { id: 'c1', name: 'sh/exec', input: { command: 'rm -rf build' } },
          reason: 'commands ask first',
          rule: 'default/ask-commands',
          tier: 'unsafe',
          sessionApprovable: true,
          sessionScope: 'rm …',
          expiresAt: null,
          preview: {
            kind: 'command',
            command: 'rm -rf build',
            shell: false,
            cwd: '/home/ada/project',
            sandbox: ['no network', 'writes: the workspace'],
          },
          risk: { destructive: true, reasons: ['deletes files recursively'] },
        }}
        waiting={0}
        active
        onAnswer={(verdict) => answers.push(verdict)}
        onDefer={() => answers.push('later')}
      />,
    );
    cleanups.push(() => ui.unmount());
    const frame = ui.lastFrame() ?? '';
    expect(frame).toContain('rm -rf build');
    // What will run, where, and what the sandbox allows, as the UI's card shows it.
    expect(frame).toContain('$ rm -rf build');
    expect(frame).toContain('in /home/ada/project');
    expect(frame).toContain('sandbox: no network; writes: the workspace');
    expect(frame).toContain('risk: unsafe · ⚠ deletes files recursively · why: commands ask first');
    expect(frame).toContain('[Y] approve  [S] approve `rm …` for session  [n] deny');
    await type(ui, 'y');
    await type(ui, 's');
    expect(answers).toEqual([]);
    await type(ui, 'Y');
    expect(answers).toEqual(['approve']);
  });

  it("shows a write's diff in the prompt, cut to the rows it is given", () => {
    const diff = ['--- a/notes.txt', '+++ b/notes.txt', '@@ -1,2 +1,8 @@', ' kept', '-old'];
    for (let i = 1; i <= 7; i++) diff.push(`+line ${i}`);
    const lines = previewLines(
      {
        kind: 'file',
        path: '/w/notes.txt',
        change: 'edit',
        diff: diff.join('\n'),
        truncated: false,
      },
      6,
    );
    expect(lines.map((l) => l.text)).toEqual([
      'edit /w/notes.txt',
      '@@ -1,2 +1,8 @@',
      ' kept',
      '-old',
      '+line 1',
      '… 6 more lines',
    ]);
    expect(lines.map((l) => l.color)).toEqual([
      undefined,
      'cyan',
      undefined,
      'red',
      'green',
      'gray',
    ]);
    expect(
      previewLines({ kind: 'fetch', url: 'https://example.org/a', host: 'example.org' }, 2),
    ).toEqual([{ text: 'fetch https://example.org/a' }]);
    expect(previewLines(null, 6)).toEqual([]);
  });

  it('lists running tools with the time since each started', () => {
    const ids = (seq: number) => ({
      trace_id: 't',
      task_id: 't',
      session_id: 'ses_1',
      run_id: 'run_1',
      seq,
      at: '2026-11-01T00:00:00Z',
    });
    const events: AssistantEvent[] = [
      {
        topic: 'run',
        sessionId: 'ses_1',
        event: {
          type: 'tool.requested',
          call: { id: 'c1', name: 'sh/exec', input: { command: 'make' } },
          read_only: false,
          ...ids(1),
        },
      },
      {
        topic: 'run',
        sessionId: 'ses_1',
        event: { type: 'tool.started', call_id: 'c1', name: 'sh/exec', ...ids(2) },
      },
    ];
    const state = events.reduce((next, event) => applyEvent(next, event, 1_000), emptyState());
    const ui = render(<ActiveTools state={state} now={3_500} />);
    cleanups.push(() => ui.unmount());
    expect(ui.lastFrame()).toBe('▶ sh/exec 2.5 s');
  });

  it('switches views with function keys and their Ctrl equivalents', async () => {
    const { link } = await inProcess(1);
    const ui = show(link);
    await frameWhere(ui, has('Model:'), 'the first frame');
    await type(ui, '\x1bOP'); // F1
    await frameWhere(ui, has('/session ID'), 'the help view');
    await type(ui, '\x1b'); // Esc
    await type(ui, '\x10'); // Ctrl+P
    const config = await frameWhere(ui, has('Configuration in force'), 'the config view');
    expect(config).toContain('Autonomy:');
    await type(ui, '\x1b[15~'); // F5
    await frameWhere(ui, has('Events'), 'the logs view');
    await type(ui, '\x1b'); // Esc
    await type(ui, '\x1bOS'); // F4
    await frameWhere(ui, has('Search:'), 'the memory view');
    await type(ui, 'pincer notes');
    await type(ui, '\r');
    // The contract's memory.search answered: no stored memory here, and the note says why the
    // search is by keyword.
    const searched = await frameWhere(ui, has('no matches'), 'the search result');
    expect(searched).toContain('Search: pincer notes');
    expect(searched).toContain('keyword (FTS5) search only');
  });

  it('draws sub-agents as a tree under the run that started them, with their origin', () => {
    const run = (id: string, goal: string, extra: Partial<RunSummary> = {}): RunSummary => ({
      id,
      sessionId: 'ses_1',
      goal,
      state: 'EXECUTING',
      outcome: null,
      reason: null,
      turns: 1,
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
      createdAt: '2026-11-01T00:00:00Z',
      updatedAt: '2026-11-01T00:00:00Z',
      live: true,
      parentRunId: null,
      origin: null,
      ...extra,
    });
    const ui = render(
      <AgentsList
        width={60}
        max={10}
        runs={[
          run('run_child', 'read the sources', { parentRunId: 'run_main', state: 'PLANNING' }),
          run('run_main', 'analyze the codebase'),
          run('run_grand', 'parse one file', {
            parentRunId: 'run_child',
            live: false,
            state: 'COMPLETED',
          }),
          run('run_cron', 'morning digest', {
            origin: { channel: 'schedule', type: 'cron', schedule: 'digest' },
            state: 'WAITING_APPROVAL',
          }),
        ]}
      />,
    );
    cleanups.push(() => ui.unmount());
    const lines = (ui.lastFrame() ?? '').split('\n');
    expect(lines).toEqual([
      '▶ [EXECUTING] analyze the codebase',
      '▶ └ [PLANNING] read the sources',
      '    └ [COMPLETED] parse one file',
      '▶ [WAITING_APPROVAL] schedule:digest morning digest',
    ]);
  });
});

describe('terminal dashboard attached to a gateway', { timeout: 120_000 }, () => {
  async function gatewayWithUi() {
    const fixture = await scriptedAssistant({ delayMs: 5 });
    const root = await mkdtemp(path.join(os.tmpdir(), 'pincer-tui-gw-'));
    await mkdir(path.join(root, 'renderer'));
    await writeFile(path.join(root, 'renderer', 'index.html'), '<!doctype html><title>ui</title>');
    const gateway = await startAssistantGateway({
      assistant: fixture.assistant,
      rendererDir: path.join(root, 'renderer'),
    });
    cleanups.push(async () => {
      await gateway.close();
      await fixture.close();
      await rm(root, { recursive: true, force: true });
    });
    const url = `ws://127.0.0.1:${gateway.port}/ipc`;
    // Two clients of the same contract: the dashboard, and the browser UI's frames.
    const tuiLink = await connectGateway(url, gateway.token);
    const uiLink = await connectGateway(url, gateway.token);
    cleanups.push(() => {
      tuiLink.close();
      uiLink.close();
    });
    return { fixture, tuiLink, uiLink };
  }

  it('answers an approval from the terminal while the UI shows it: the first answer wins', async () => {
    const { tuiLink, uiLink } = await gatewayWithUi();
    const ui = show(tuiLink);
    await frameWhere(ui, has('attached 127.0.0.1'), 'the link in the status bar');
    await send(ui, 'write a note');
    const asked = await frameWhere(ui, has('Approve?'), 'the approval prompt');
    expect(asked).toContain('@fs/write{path="notes/hello.txt"');
    expect(asked).toContain('risk:');
    const [pending] = await uiLink.invoke('approvals.list', {});
    expect(pending?.call.name).toBe('fs/write');

    await type(ui, 'y');
    await frameWhere(ui, has('Done: the tool said'), 'the tool result read back');
    const late = await uiLink.invoke('approvals.resolve', {
      approvalId: pending?.id ?? '',
      verdict: 'deny',
    });
    expect(late.result).toBe('already_resolved');
  });

  it('drops the prompt when the UI answers first, and tells a late answer so', async () => {
    const { tuiLink, uiLink } = await gatewayWithUi();
    const ui = show(tuiLink);
    await frameWhere(ui, has('attached'), 'the first frame');
    await send(ui, 'write another note');
    await frameWhere(ui, has('Approve?'), 'the approval prompt');
    const [pending] = await uiLink.invoke('approvals.list', {});
    const first = await uiLink.invoke('approvals.resolve', {
      approvalId: pending?.id ?? '',
      verdict: 'deny',
      reason: 'not today',
    });
    expect(first.result).toBe('resolved');
    const after = await frameWhere(ui, has('The write did not happen'), 'the denial read back');
    expect(after).not.toContain('Approve?');
  });
});
