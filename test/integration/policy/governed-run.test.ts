/**
 * A scripted multi-tool run under the policy engine: the audit log has a row for every tool
 * call and decision, approvals are asked and answered, and a planted secret appears nowhere the
 * model, the event stream or the audit can see.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { screenedTools } from '../../../src/main/core/agent/screened-tools.js';
import type { EffectivePolicyRule } from '../../../src/main/core/ckp/resolved.js';
import { viaProvider } from '../../../src/main/core/models/access.js';
import { ApprovalBroker } from '../../../src/main/core/policy/broker.js';
import { PolicyEngine } from '../../../src/main/core/policy/engine.js';
import { ContentScanner } from '../../../src/main/core/policy/scanner.js';
import { Redactor } from '../../../src/main/core/redaction/index.js';
import { AuditLog } from '../../../src/main/core/runtime/audit.js';
import { AgentRuntime } from '../../../src/main/core/runtime/runtime.js';
import type { RunStore } from '../../../src/main/core/runtime/store.js';
import { ScriptedProvider } from '../../support/scripted-provider.js';
import { drain, tempStore, toolHost } from '../runtime/harness.js';

const PLANTED = 'pk-planted-7f3a9c1e5b';
let store: RunStore;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ store, cleanup } = await tempStore());
});
afterEach(() => cleanup());

it('audits every call and keeps a planted secret out of model input, events and audit', async () => {
  const redactor = new Redactor();
  redactor.register(PLANTED, 'PLANTED');
  const scanner = new ContentScanner({ redactor });
  const audit = new AuditLog(store.db, scanner);
  const broker = new ApprovalBroker();
  broker.onRequest((pending) => {
    // A person at the terminal: yes to writes in notes/, no to anything else.
    const ok = String(pending.call.input.path ?? '').startsWith('notes/');
    queueMicrotask(() => broker.resolve(pending.id, ok ? 'approve' : 'deny', 'terminal'));
  });
  const rules = [
    {
      policy: 'base',
      id: 'read',
      action: 'allow',
      scope: 'tool',
      match: { annotations: { readOnlyHint: true } },
    },
    {
      policy: 'base',
      id: 'write',
      action: 'require-approval',
      scope: 'category',
      match: { category: 'filesystem' },
    },
    { policy: 'base', id: 'default-deny', action: 'deny', scope: 'all', reason: 'default deny' },
  ] as EffectivePolicyRule[];
  const policy = new PolicyEngine({
    rules,
    autonomy: 'supervised',
    broker,
    context: { workspace: '/ws', home: '/home/u' },
    facts: (name) =>
      ({
        'env/show': {
          name,
          category: 'system',
          tier: 'safe' as const,
          annotations: { readOnlyHint: true },
        },
        'fs/write': {
          name,
          category: 'filesystem',
          tier: 'guarded' as const,
          annotations: { readOnlyHint: false },
        },
      })[name],
  });
  const { host, log } = toolHost({
    // A tool that leaks the secret (and an AWS key) in its output.
    'env/show': {
      readOnly: true,
      run: () => ({ content: `HOME=/home/u\nTOKEN=${PLANTED}\nAWS=AKIAIOSFODNN7EXAMPLE` }),
    },
    'fs/write': { run: (input) => ({ content: `wrote ${String(input.path)}` }) },
    'net/post': { run: () => ({ content: 'posted' }) },
  });
  const provider = new ScriptedProvider([
    {
      toolCalls: [
        { id: 'c1', name: 'env/show', input: {} },
        { id: 'c2', name: 'fs/write', input: { path: 'notes/a.md', text: 'hi' } },
        { id: 'c3', name: 'fs/write', input: { path: 'etc/hosts', text: 'x' } },
        { id: 'c4', name: 'net/post', input: { url: 'https://x.test', body: 'report' } },
      ],
    },
    { text: 'Done.' },
  ]);
  const runtime = new AgentRuntime({
    store,
    model: viaProvider(provider, 'm'),
    tools: screenedTools(host, scanner),
    policy,
    approvals: broker,
    redactor,
    onEvent: audit.record,
  });
  const handle = runtime.start({ text: 'look around and take notes' });
  const [events, result] = await Promise.all([drain(handle.events.all()), handle.done]);
  expect(result.outcome).toBe('completed');
  expect(log).toEqual(['start env/show', 'end env/show', 'start fs/write', 'end fs/write']);

  const results = provider.requests[1]?.messages.at(-1)?.content ?? [];
  expect(
    results.map((b) => (b.type === 'tool_result' ? [b.toolUseId, b.isError === true] : [])),
  ).toEqual([
    ['c1', false],
    ['c2', false],
    ['c3', true],
    ['c4', true],
  ]);
  expect(JSON.stringify(results[2])).toContain('-32013');
  expect(JSON.stringify(results[3])).toContain('-32011');

  const rows = audit.list({ runId: handle.runId });
  const perCall = (id: string) =>
    rows
      .filter((r) => r.callId === id)
      .map((r) => `${r.event}${r.decision ? `:${r.decision}` : ''}`);
  expect(perCall('c1')).toEqual(['requested', 'decided:allow', 'started', 'finished']);
  expect(perCall('c2')).toEqual([
    'requested',
    'decided:ask',
    'approval_requested',
    'approval_resolved:approved',
    'started',
    'finished',
  ]);
  expect(perCall('c3')).toEqual([
    'requested',
    'decided:ask',
    'approval_requested',
    'approval_resolved:denied',
    'finished',
  ]);
  expect(perCall('c4')).toEqual(['requested', 'decided:deny', 'finished']);
  expect(rows.find((r) => r.callId === 'c4' && r.event === 'decided')).toMatchObject({
    rule: 'base/default-deny',
    reason: 'default deny',
  });
  expect(rows.find((r) => r.event === 'approval_resolved')).toMatchObject({
    approvalBy: 'terminal',
    tool: 'fs/write',
  });
  expect(rows.every((r) => r.traceId && r.taskId && r.runId === handle.runId)).toBe(true);

  const modelInput = JSON.stringify(provider.requests);
  expect(modelInput).toContain('[REDACTED:PLANTED]');
  expect(modelInput).toContain('[REDACTED:aws-access-key]');
  for (const [where, text] of [
    ['model input', modelInput],
    ['events', JSON.stringify(events)],
    ['audit', JSON.stringify(rows)],
    [
      'stored messages',
      JSON.stringify(store.branch(store.getRun(handle.runId)?.lastMessageId ?? null)),
    ],
  ] as const) {
    expect(text, where).not.toContain(PLANTED);
  }
  expect(() => store.db.prepare('delete from audit_events').run()).toThrow('append-only');
  expect(() => store.db.prepare("update audit_events set reason = 'x'").run()).toThrow(
    'append-only',
  );
});
