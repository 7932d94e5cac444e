/**
 * Pincer's guard rules on top of a manifest's: writes to SOUL.md/USER.md ask every time, judged
 * on real paths, whatever the autonomy and the manifest's allow rules; a manifest deny stays a
 * deny. And a tool that writes where its arguments do not say (memory/note) is asked with the
 * file named.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EffectivePolicyRule } from '../../../src/main/core/ckp/resolved.js';
import { memoryNote } from '../../../src/main/core/memory/note-tool.js';
import { ApprovalBroker } from '../../../src/main/core/policy/broker.js';
import { type Autonomy, PolicyEngine } from '../../../src/main/core/policy/engine.js';
import type { ToolFacts } from '../../../src/main/core/policy/rules.js';
import type { RunId, SessionId, StepId } from '../../../src/main/core/terms.js';
import { factsOf } from '../../../src/main/core/tools/types.js';

let dir = '';
let ws = '';
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-guards-'));
  ws = path.join(dir, 'ws');
  await mkdir(path.join(ws, 'notes'), { recursive: true });
  await writeFile(path.join(ws, 'SOUL.md'), 'soul');
  await symlink(path.join(ws, 'SOUL.md'), path.join(ws, 'notes', 'alias.md'));
  await symlink(ws, path.join(ws, 'notes', 'up'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const allowAll = (id: string, action: EffectivePolicyRule['action']): EffectivePolicyRule =>
  ({ policy: 'm', id, action, scope: 'all' }) as EffectivePolicyRule;

const FACTS: Record<string, ToolFacts> = {
  'fs/write': {
    name: 'fs/write',
    category: 'filesystem',
    tier: 'guarded',
    annotations: { readOnlyHint: false },
  },
  'fs/read': {
    name: 'fs/read',
    category: 'filesystem',
    tier: 'safe',
    annotations: { readOnlyHint: true },
  },
  'memory/note': factsOf(memoryNote),
};

function engine(
  autonomy: Autonomy,
  rules = [allowAll('allow-everything', 'allow')],
  broker = new ApprovalBroker(),
) {
  return new PolicyEngine({
    rules,
    autonomy,
    facts: (n) => FACTS[n],
    context: { workspace: ws, home: dir, now: () => new Date(2026, 10, 23, 9, 30) },
    broker,
  });
}

const ctx = (readOnly = false) => ({
  runId: 'run_1' as RunId,
  sessionId: 'ses_1' as SessionId,
  stepId: 'stp_1' as StepId,
  readOnly,
});
const write = (p: string) => ({ id: 'c', name: 'fs/write', input: { path: p, content: 'x' } });

describe('guard rules', () => {
  it('a write to SOUL.md or USER.md asks, autonomous under an allow-everything manifest', async () => {
    for (const target of ['SOUL.md', 'USER.md', './SOUL.md', 'notes/../USER.md'])
      expect(await engine('autonomous').decide(write(target), ctx())).toMatchObject({
        action: 'ask',
        rule: expect.stringMatching(/^pincer\/identity-(soul|user)$/),
        sessionApprovable: false,
        reason: expect.stringMatching(/goes into every later system prompt/),
      });
    expect(await engine('autonomous').decide(write('notes/today.md'), ctx())).toMatchObject({
      action: 'allow',
    });
  });

  it('judges real paths: a link or a linked folder leading to SOUL.md is SOUL.md', async () => {
    for (const target of ['notes/alias.md', 'notes/up/SOUL.md', path.join(ws, 'SOUL.md')])
      expect(await engine('autonomous').decide(write(target), ctx())).toMatchObject({
        action: 'ask',
        rule: 'pincer/identity-soul',
      });
  });

  it('a session approval of the tool does not cover identity files; reads are not guarded', async () => {
    const broker = new ApprovalBroker();
    const supervised = engine('supervised', [allowAll('allow-everything', 'allow')], broker);
    const asked = broker.request({
      id: 'a1',
      runId: 'run_1' as RunId,
      sessionId: 'ses_1' as SessionId,
      call: write('notes/a.md'),
      reason: 'r',
      sessionApprovable: true,
      signal: new AbortController().signal,
    });
    broker.resolve('a1', 'approve-for-session', 'test');
    await asked;
    expect(await supervised.decide(write('notes/b.md'), ctx())).toMatchObject({
      action: 'allow',
      reason: 'approved for this session',
    });
    expect(await supervised.decide(write('SOUL.md'), ctx())).toMatchObject({ action: 'ask' });
    expect(
      await supervised.decide({ id: 'r', name: 'fs/read', input: { path: 'SOUL.md' } }, ctx(true)),
    ).toMatchObject({ action: 'allow' });
  });

  it('never loosens: a manifest deny of the write stays a deny', async () => {
    const denying = engine('autonomous', [allowAll('no-writes', 'deny')]);
    expect(await denying.decide(write('SOUL.md'), ctx())).toMatchObject({
      action: 'deny',
      rule: 'm/no-writes',
    });
  });
});

describe('declared writes', () => {
  it("memory/note's approval names the daily thread it appends to", async () => {
    const decision = await engine('supervised').decide(
      { id: 'n', name: 'memory/note', input: { text: 'remember this' } },
      ctx(),
    );
    expect(decision).toMatchObject({
      action: 'ask',
      reason: 'supervised: memory/note has side effects (writes threads/daily/2026-11-23.md)',
      grant: { paths: [path.join(ws, 'threads/daily/2026-11-23.md')] },
    });
  });
});
