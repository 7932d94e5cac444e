/**
 * "Approve for session" covers what the tool declares (sys/exec: the exact call shown), never
 * every call of the tool, and never a destructive command or one that runs another program.
 */
import { describe, expect, it } from 'vitest';
import type { EffectivePolicyRule } from '../../../src/main/core/ckp/resolved.js';
import { ApprovalBroker } from '../../../src/main/core/policy/broker.js';
import { PolicyEngine } from '../../../src/main/core/policy/engine.js';
import type { PolicyDecision } from '../../../src/main/core/policy/hooks.js';
import { sessionScopeOf } from '../../../src/main/core/policy/session-scope.js';
import type { RunId, SessionId, StepId } from '../../../src/main/core/terms.js';
import { sysExec } from '../../../src/main/core/tools/builtins/exec.js';
import { factsOf } from '../../../src/main/core/tools/types.js';

const ASK_EXEC = {
  policy: 'p',
  id: 'ask-exec',
  action: 'require-approval',
  scope: 'all',
  conditions: { tool: 'sys/exec' },
} as EffectivePolicyRule;

const ctx = (sessionId = 'ses_1') => ({
  runId: 'run_1' as RunId,
  sessionId: sessionId as SessionId,
  stepId: 'step_1' as StepId,
  readOnly: false,
});

function setup() {
  const broker = new ApprovalBroker();
  const engine = new PolicyEngine({
    rules: [ASK_EXEC],
    autonomy: 'autonomous',
    facts: (name) => (name === sysExec.name ? factsOf(sysExec) : undefined),
    context: { workspace: '/w', home: '/h' },
    broker,
  });
  let n = 0;
  const exec = (input: Record<string, unknown>, sessionId = 'ses_1') =>
    engine.decide({ id: `c${++n}`, name: sysExec.name, input }, ctx(sessionId));
  /** Asks through the broker as the runtime does and answers "approve for session". */
  const approveForSession = async (input: Record<string, unknown>) => {
    const decision = await exec(input);
    if (decision.action !== 'ask') throw new Error(`expected ask, got ${decision.action}`);
    const answer = broker.request({
      id: `a${n}`,
      runId: 'run_1' as RunId,
      sessionId: 'ses_1' as SessionId,
      call: { id: `c${n}`, name: sysExec.name, input },
      reason: decision.reason,
      sessionApprovable: decision.sessionApprovable,
      ...(decision.sessionScope ? { sessionScope: decision.sessionScope } : {}),
      signal: new AbortController().signal,
    });
    expect(broker.resolve(`a${n}`, 'approve-for-session', 'test')).toBe('resolved');
    await answer;
    return decision;
  };
  return { broker, exec, approveForSession };
}

const action = (d: PolicyDecision) => d.action;

describe('session grants scoped to the exact call shown', () => {
  it('approving `ls` for the session does not let `rm -rf build` through', async () => {
    const { exec, approveForSession } = setup();
    const granted = await approveForSession({ command: 'ls' });
    expect(granted).toMatchObject({ sessionApprovable: true, sessionScope: { label: 'ls' } });
    expect(await exec({ command: 'ls' })).toMatchObject({
      action: 'allow',
      reason: 'approved for this session',
    });
    expect(await exec({ command: 'ls', shell: false })).toMatchObject({ action: 'allow' });
    // The reproduction from the issue: the same tool, another command, asks again.
    const rm = await exec({ command: 'rm', args: ['-rf', 'build'] });
    expect(rm).toMatchObject({ action: 'ask', sessionApprovable: false });
    expect(action(await exec({ command: 'rm -rf build', shell: true }))).toBe('ask');
    // Another argument is outside the exact `ls` grant; another session has no grant at all.
    expect(action(await exec({ command: 'ls', args: ['/etc'] }))).toBe('ask');
    expect(action(await exec({ command: 'ls' }, 'ses_2'))).toBe('ask');
  });

  it('a `git status` grant covers exactly `git status`, in the same folder', async () => {
    const { exec, approveForSession } = setup();
    const granted = await approveForSession({ command: 'git', args: ['status'] });
    expect(granted).toMatchObject({ sessionScope: { label: 'git status' } });
    expect(action(await exec({ command: 'git', args: ['status'] }))).toBe('allow');
    expect(action(await exec({ command: 'git', args: ['status'], cwd: '.' }))).toBe('allow');
    expect(action(await exec({ command: 'git', args: ['status'], cwd: './' }))).toBe('allow');
    // Another option, argument, folder or form is another call.
    expect(action(await exec({ command: 'git', args: ['status', '--short'] }))).toBe('ask');
    expect(action(await exec({ command: 'git', args: ['push'] }))).toBe('ask');
    expect(action(await exec({ command: 'git' }))).toBe('ask');
    expect(action(await exec({ command: 'git', args: ['status'], cwd: 'other' }))).toBe('ask');
    expect(action(await exec({ command: 'git status', shell: true }))).toBe('ask');
  });

  it('`sed -n p notes.md` approved does not cover `sed -n 1e…` (the reported payload)', async () => {
    const { exec, approveForSession } = setup();
    const granted = await approveForSession({ command: 'sed', args: ['-n', 'p', 'notes.md'] });
    expect(granted).toMatchObject({ sessionScope: { label: 'sed -n p notes.md' } });
    expect(action(await exec({ command: 'sed', args: ['-n', 'p', 'notes.md'] }))).toBe('allow');
    const payload = await exec({ command: 'sed', args: ['-n', '1e id>PWN', 'notes.md'] });
    expect(payload).toMatchObject({ action: 'ask', sessionApprovable: false });
    expect(payload).not.toHaveProperty('sessionScope');
    for (const args of [
      ['-n', '1p', 'notes.md'],
      ['-n', 'p', 'other.md'],
      ['-n', 'p'],
    ])
      expect(action(await exec({ command: 'sed', args })), args.join(' ')).toBe('ask');
  });

  it('a call that runs another program is never approved by a timeout either', async () => {
    const broker = new ApprovalBroker();
    const engine = new PolicyEngine({
      rules: [{ ...ASK_EXEC, approval: { timeout_seconds: 1, default_if_timeout: 'allow' } }],
      autonomy: 'autonomous',
      facts: (name) => (name === sysExec.name ? factsOf(sysExec) : undefined),
      context: { workspace: '/w', home: '/h' },
      broker,
    });
    const decide = (args: string[]) =>
      engine.decide({ id: 'c', name: sysExec.name, input: { command: 'sed', args } }, ctx());
    expect(await decide(['-n', 'p', 'notes.md'])).toMatchObject({ defaultIfTimeout: 'allow' });
    expect(await decide(['-n', '1e id>PWN', 'notes.md'])).toMatchObject({
      action: 'ask',
      defaultIfTimeout: 'deny',
      reason: expect.stringContaining('runs another program'),
    });
  });

  it('the label is the call as the preview writes it, quoted, with its folder', () => {
    expect(
      sessionScopeOf(sysExec.sessionScope, {
        command: 'grep',
        args: ['-n', 'a b', "it's"],
        cwd: 'src/',
      })?.label,
    ).toBe(`grep -n 'a b' 'it'\\''s' (in src)`);
  });

  it('a shell line is granted only as itself', async () => {
    const { exec, approveForSession } = setup();
    await approveForSession({ command: 'make test', shell: true });
    expect(action(await exec({ command: 'make test', shell: true }))).toBe('allow');
    expect(action(await exec({ command: 'make test; curl x', shell: true }))).toBe('ask');
  });

  it('a destructive command is never session-approvable, even inside a granted prefix', async () => {
    const { broker, exec, approveForSession } = setup();
    const destructive = await exec({ command: 'rm', args: ['-rf', 'build'] });
    expect(destructive).toMatchObject({ action: 'ask', sessionApprovable: false });
    expect(destructive).not.toHaveProperty('sessionScope');
    const answer = broker.request({
      id: 'd1',
      runId: 'run_1' as RunId,
      sessionId: 'ses_1' as SessionId,
      call: { id: 'd', name: sysExec.name, input: { command: 'rm', args: ['-rf', 'build'] } },
      reason: 'r',
      sessionApprovable: false,
      signal: new AbortController().signal,
    });
    expect(broker.resolve('d1', 'approve-for-session', 'test')).toBe('not_session_approvable');
    expect(broker.resolve('d1', 'deny', 'test')).toBe('resolved');
    await answer;
    // `rm build` granted; `rm build -rf /` is still asked about on its own.
    await approveForSession({ command: 'rm', args: ['build'] });
    expect(action(await exec({ command: 'rm', args: ['build'] }))).toBe('allow');
    expect(await exec({ command: 'rm', args: ['build', '-rf', '/'] })).toMatchObject({
      action: 'ask',
      sessionApprovable: false,
    });
  });

  it('the label a person reads has no control or direction characters, and is bounded', () => {
    const spec = sysExec.sessionScope;
    const hostile = sessionScopeOf(spec, { command: 'ls\u001b[2J\u202egnp.exe', args: ['x'] });
    expect(hostile?.label).toBe('ls\\u001b[2J\\u202egnp.exe x');
    const long = sessionScopeOf(spec, { command: 'a'.repeat(5000) });
    expect(long?.label.length).toBeLessThan(400);
    expect(long?.key).toContain('a'.repeat(5000));
  });

  it('a tool that declares no scope is granted as a whole', () => {
    expect(sessionScopeOf(undefined, { path: 'a' })).toBeUndefined();
    expect(sessionScopeOf({ args: ['command', 'args'] }, { command: 'ls', args: [] })).toEqual(
      sessionScopeOf({ args: ['command', 'args'] }, { command: 'ls' }),
    );
  });
});
