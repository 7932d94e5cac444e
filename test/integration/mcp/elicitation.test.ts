/**
 * A form an MCP server asks the user to fill from inside a tool call (elicitation/create),
 * through the real assistant: a stdio server of the user's mcp.json started under the sandbox,
 * the runtime, the input broker, the audit and the IPC contract's dispatch. The tool call raises
 * `input.requested`; an answer that does not fit the form is refused and stays pending; a valid
 * one, a decline and a cancel reach the server; nobody answering in time, or the run being
 * cancelled, cancels it; hostile forms are refused without anything being shown.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Assistant, createAssistant } from '../../../src/main/core/assistant/index.js';
import { dispatch, type IpcHandlers } from '../../../src/main/core/ipc/dispatch.js';
import { createCoreHandlers } from '../../../src/main/core/ipc/handlers.js';
import { viaProvider } from '../../../src/main/core/models/access.js';
import type {
  AssistantEvent,
  ChannelName,
  RequestOf,
  ResponseOf,
  RunEventView,
} from '../../../src/shared/ipc.js';
import { APP_DIR } from '../../support/assistant-harness.js';
import { repoRoot } from '../../support/cli-run.js';
import { type ClawParts, STUB_PROVIDER, writeClaw } from '../../support/manifest.js';
import { ScriptedProvider } from '../../support/scripted-provider.js';
import { vaultSecrets } from '../../support/secrets.js';

const server = path.join(repoRoot, 'test/fixtures/mcp/client-requests-server.mjs');

interface Fixture {
  assistant: Assistant;
  handlers: IpcHandlers;
  events: AssistantEvent[];
  dataDir: string;
  close(): Promise<void>;
}

function manifest(approvalTimeoutSeconds?: number): ClawParts {
  const approval = approvalTimeoutSeconds
    ? { approval: { timeout_seconds: approvalTimeoutSeconds } }
    : {};
  return {
    name: 'elicit',
    identity: { name: 'elicit', personality: 'Test.', autonomy: 'autonomous' },
    providers: [{ ...STUB_PROVIDER, name: 'none', model: 'm' }],
    sandbox: { name: 'box', level: 'process' },
    policies: [{ name: 'p', rules: [{ id: 'all', action: 'allow', scope: 'all', ...approval }] }],
  };
}

/**
 * The user message is the tool call to make, as JSON; a tool result is read back as the reply.
 */
function script() {
  return new ScriptedProvider((request) => {
    const last = request.messages.at(-1);
    const result = last?.content.find((block) => block.type === 'tool_result');
    if (result?.type === 'tool_result')
      return { text: [`tool said: ${String(result.content)}`], delayMs: 1 };
    const typed = last?.content.find((block) => block.type === 'text');
    const call = JSON.parse(typed?.type === 'text' ? typed.text : '{}') as {
      name: string;
      input: Record<string, unknown>;
    };
    return { text: 'Asking.', toolCalls: [call], delayMs: 1 };
  });
}

async function open(options: { approvalTimeoutSeconds?: number } = {}): Promise<Fixture> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-elicit-'));
  const file = await writeClaw(dataDir, manifest(options.approvalTimeoutSeconds));
  await writeFile(
    path.join(dataDir, 'mcp.json'),
    JSON.stringify({ mcpServers: { asker: { command: process.execPath, args: [server] } } }),
  );
  const assistant = await createAssistant({
    dataDir,
    appDir: APP_DIR,
    manifest: file,
    askForInput: true,
    model: {
      kind: 'fixed',
      access: viaProvider(script(), 'scripted'),
      label: 'scripted/test',
      scripted: true,
      contextWindow: 8192,
    },
    secrets: vaultSecrets(dataDir, 'elicit'),
  });
  const events: AssistantEvent[] = [];
  assistant.subscribe((event) => events.push(event));
  return {
    assistant,
    handlers: createCoreHandlers({ assistant, electronVersion: null }),
    events,
    dataDir,
    close: async () => {
      await assistant.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function call<C extends ChannelName>(f: Fixture, channel: C, request: RequestOf<C>) {
  const result = await dispatch(f.handlers, channel, request);
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value as ResponseOf<C>;
}

function runEvents(f: Fixture, runId: string): RunEventView[] {
  return f.events.flatMap((event) =>
    event.topic === 'run' && event.event.run_id === runId ? [event.event] : [],
  );
}

/** Starts a run calling `tool`, and waits for the form it raises (if `form`). */
async function ask(f: Fixture, tool: string, input: Record<string, unknown> = {}) {
  const { runId, sessionId } = await call(f, 'chat.send', {
    text: JSON.stringify({ name: tool, input }),
  });
  return { runId, sessionId };
}

async function pendingOf(f: Fixture, runId: string) {
  await expect
    .poll(async () => (await call(f, 'inputs.list', {})).filter((i) => i.runId === runId).length)
    .toBe(1);
  const [pending] = (await call(f, 'inputs.list', {})).filter((i) => i.runId === runId);
  if (!pending) throw new Error('no pending input');
  return pending;
}

async function toolOutput(f: Fixture, runId: string): Promise<string> {
  await f.assistant.finished(runId);
  const finished = runEvents(f, runId).find((event) => event.type === 'tool.finished');
  return finished?.type === 'tool.finished' ? finished.output : '';
}

let f: Fixture;

beforeAll(async () => {
  f = await open();
}, 60_000);
afterAll(async () => {
  await f?.close();
});

describe('MCP elicitation through the assistant', () => {
  it('shows the form, refuses an answer that does not fit, and returns a valid one', async () => {
    const { runId, sessionId } = await ask(f, 'mcp/asker/signup');
    const pending = await pendingOf(f, runId);
    expect(pending).toMatchObject({
      sessionId,
      tool: 'mcp/asker/signup',
      source: 'asker',
      message: 'Sign up for the <b>newsletter</b> [here](javascript:alert(1))',
    });
    expect(pending.callId).toBeTruthy();
    expect(pending.fields.map((field) => [field.name, field.kind, field.required])).toEqual([
      ['name', 'string', true],
      ['email', 'string', true],
      ['age', 'integer', false],
      ['subscribe', 'boolean', false],
      ['colour', 'enum', false],
    ]);
    expect(pending.fields[4]).toMatchObject({
      options: [
        { value: 'r', label: 'Red' },
        { value: 'g', label: 'Green' },
      ],
    });
    // The run and the UI were both told.
    const requested = runEvents(f, runId).find((event) => event.type === 'input.requested');
    expect(requested).toMatchObject({
      input_id: pending.id,
      call_id: pending.callId,
      source: 'asker',
      fields: ['name', 'email', 'age', 'subscribe', 'colour'],
    });
    expect(f.events).toContainEqual(
      expect.objectContaining({
        topic: 'input.requested',
        input: expect.objectContaining({ id: pending.id }),
      }),
    );

    // Wrong: a missing required field, a bad email, an age out of range, a field not asked for.
    const wrong = await call(f, 'inputs.resolve', {
      inputId: pending.id,
      action: 'accept',
      content: { email: 'not-an-email', age: 200, extra: 'x' },
    });
    expect(wrong.result).toBe('invalid');
    expect(wrong.errors.join('\n')).toMatch(/name is required/);
    expect(wrong.errors.join('\n')).toMatch(/email must match format "email"/);
    expect(wrong.errors.join('\n')).toMatch(/age must be <= 150/);
    expect(wrong.errors.join('\n')).toMatch(/extra is not a field of this form/);
    // Content with a decline is a mistake, not a decline.
    const mixed = await dispatch(f.handlers, 'inputs.resolve', {
      inputId: pending.id,
      action: 'decline',
      content: { name: 'x' },
    });
    expect(mixed).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    // Still waiting, nothing lost.
    expect((await call(f, 'inputs.list', {})).map((i) => i.id)).toContain(pending.id);

    const answer = {
      name: 'Ada Lovelace',
      email: 'ada@example.org',
      age: 36,
      subscribe: false,
      colour: 'g',
    };
    const right = await call(f, 'inputs.resolve', {
      inputId: pending.id,
      action: 'accept',
      content: answer,
    });
    expect(right).toEqual({ result: 'resolved', errors: [] });
    // The first answer wins; another is refused.
    expect(
      await call(f, 'inputs.resolve', { inputId: pending.id, action: 'decline' }),
    ).toMatchObject({ result: 'already_resolved' });

    const output = await toolOutput(f, runId);
    expect(output).toBe(`elicitation: accept ${JSON.stringify(answer)}`);
    expect(runEvents(f, runId).find((event) => event.type === 'input.resolved')).toMatchObject({
      input_id: pending.id,
      action: 'accept',
      by: 'ui',
      fields: ['name', 'email', 'age', 'subscribe', 'colour'],
    });

    // The audit names the action and the fields, never what was typed.
    const audit = f.assistant.run(runId).audit;
    const asked = audit.find((row) => row.event === 'input_requested');
    const answered = audit.find((row) => row.event === 'input_resolved');
    expect(asked).toMatchObject({ tool: 'mcp/asker/signup', callId: pending.callId });
    expect(answered).toMatchObject({ decision: 'accept', approvalBy: 'ui' });
    const stored = JSON.stringify(
      f.assistant.run(runId).audit.filter((row) => row.event.startsWith('input_')),
    );
    expect(stored).toContain('"email"');
    expect(stored).not.toContain('Ada Lovelace');
    expect(stored).not.toContain('ada@example.org');
    expect(await call(f, 'inputs.list', {})).toEqual([]);
  });

  it('a decline and a cancel reach the server as such', async () => {
    const first = await ask(f, 'mcp/asker/signup');
    const declined = await pendingOf(f, first.runId);
    expect(await call(f, 'inputs.resolve', { inputId: declined.id, action: 'decline' })).toEqual({
      result: 'resolved',
      errors: [],
    });
    expect(await toolOutput(f, first.runId)).toBe('elicitation: decline null');

    const second = await ask(f, 'mcp/asker/signup');
    const cancelled = await pendingOf(f, second.runId);
    await call(f, 'inputs.resolve', { inputId: cancelled.id, action: 'cancel' });
    expect(await toolOutput(f, second.runId)).toBe('elicitation: cancel null');
    const audit = f.assistant.run(second.runId).audit;
    expect(audit.find((row) => row.event === 'input_resolved')).toMatchObject({
      decision: 'cancel',
      approvalBy: 'ui',
    });
  });

  it('cancelling the run cancels its form', async () => {
    const { runId } = await ask(f, 'mcp/asker/signup');
    const pending = await pendingOf(f, runId);
    expect(await call(f, 'chat.cancel', { runId })).toEqual({ cancelled: true });
    await f.assistant.finished(runId);
    expect(await call(f, 'inputs.list', {})).toEqual([]);
    expect(f.events).toContainEqual({
      topic: 'input.resolved',
      id: pending.id,
      action: 'cancel',
      by: 'cancelled',
    });
    expect(
      await call(f, 'inputs.resolve', {
        inputId: pending.id,
        action: 'accept',
        content: { name: 'Late', email: 'late@example.org' },
      }),
    ).toMatchObject({ result: 'already_resolved' });
    const row = f.assistant.run(runId).audit.find((r) => r.event === 'input_resolved');
    expect(row).toMatchObject({ decision: 'cancel', approvalBy: 'cancelled' });
    expect(row?.reason).toMatch(/ended/);
  });

  it.each([
    // A shape the specification's schema does not allow at all is stopped by the SDK's own check.
    ['nested', /Invalid elicitation request/],
    ['many', /at most 20 properties, not 500/],
    ['huge', /message is longer than 2000 characters/],
    ['pattern', /keyword "pattern" is not allowed/],
  ])('refuses a hostile form (%s) with InvalidParams, and shows nothing', async (kind, why) => {
    const { runId } = await ask(f, 'mcp/asker/hostile', { kind });
    const output = await toolOutput(f, runId);
    expect(output).toMatch(/^refused: -32602 /);
    expect(output).toMatch(why);
    const types = runEvents(f, runId).map((event) => event.type);
    expect(types).not.toContain('input.requested');
    expect(
      f.events.filter((e) => e.topic === 'input.requested' && e.input.runId === runId),
    ).toEqual([]);
  });

  it('refuses a URL-mode request: no link is ever opened for a server', async () => {
    const { runId } = await ask(f, 'mcp/asker/hostile', { kind: 'url' });
    const output = await toolOutput(f, runId);
    expect(output).toMatch(/^refused: -32602 .*URL-mode/);
    expect(runEvents(f, runId).map((event) => event.type)).not.toContain('input.requested');
  });
});

describe('MCP elicitation nobody answers', () => {
  let slow: Fixture;
  beforeAll(async () => {
    // The manifest's approval timeout (1 s) is how long a person has to fill a form too.
    slow = await open({ approvalTimeoutSeconds: 1 });
  }, 60_000);
  afterAll(async () => {
    await slow?.close();
  });

  it('is cancelled when the timeout passes', async () => {
    const { runId } = await ask(slow, 'mcp/asker/signup');
    const pending = await pendingOf(slow, runId);
    expect(Date.parse(pending.expiresAt) - Date.now()).toBeLessThanOrEqual(1000);
    expect(await toolOutput(slow, runId)).toBe('elicitation: cancel null');
    expect(await call(slow, 'inputs.list', {})).toEqual([]);
    const row = slow.assistant.run(runId).audit.find((r) => r.event === 'input_resolved');
    expect(row).toMatchObject({ decision: 'cancel', approvalBy: 'timeout' });
    expect(row?.reason).toBe('nobody answered in time');
  });
});
