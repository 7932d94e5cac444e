/**
 * Rules match what runs. Under a user's `git *`, `tar *`, `sed *` and `split *` allow rules (the
 * shipped manifest, autonomous), each call that makes the program run another program is not
 * allowed by the rule: it asks a person, is never approvable for the session, and says why.
 * Every call the policy allows is then really run in the sandbox (bwrap), so a payload the
 * policy let through would leave its marker file: the markers stay absent, while the same
 * payloads run directly in the sandbox do create them (they are real), and the ordinary forms
 * the rules were written for still run.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadClaw } from '../../../src/main/core/ckp/loader.js';
import { policyRules } from '../../../src/main/core/ckp/resolved.js';
import { ApprovalBroker } from '../../../src/main/core/policy/broker.js';
import { PolicyEngine } from '../../../src/main/core/policy/engine.js';
import type { PolicyDecision } from '../../../src/main/core/policy/hooks.js';
import { detectBackend } from '../../../src/main/core/sandbox/backend.js';
import { createSandbox, type Sandbox } from '../../../src/main/core/sandbox/sandbox.js';
import { sandboxSettings } from '../../../src/main/core/sandbox/settings.js';
import type { RunId, SessionId, StepId } from '../../../src/main/core/terms.js';
import { BUILTIN_TOOLS } from '../../../src/main/core/tools/builtins/index.js';
import type { ToolHost } from '../../../src/main/core/tools/host.js';
import { ToolRegistry } from '../../../src/main/core/tools/registry.js';
import { addUserRules, shippedClaw, writeDocument } from '../../support/manifest.js';

let root = '';
let workspace = '';
let sandbox: Sandbox;
let host: ToolHost;
let engine: PolicyEngine;
let broker: ApprovalBroker;
const registry = new ToolRegistry();
for (const tool of BUILTIN_TOOLS) registry.register(tool);

const runContext = { runId: 'run' as RunId, stepId: 'step' as StepId };
const policyContext = { ...runContext, sessionId: 'ses' as SessionId, readOnly: false };

function hostGit(...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd: workspace,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root, GIT_CONFIG_NOSYSTEM: '1' },
    stdio: 'ignore',
  });
}

/** A fresh workspace: a git repository with two commits, a note and a tar of it. */
async function freshWorkspace(): Promise<void> {
  await rm(workspace, { recursive: true, force: true });
  await mkdir(workspace, { recursive: true });
  await writeFile(path.join(workspace, 'notes.md'), 'one\ntwo\n');
  hostGit('init', '-q', '-b', 'main');
  hostGit('add', 'notes.md');
  hostGit('commit', '-q', '-m', 'one');
  await writeFile(path.join(workspace, 'notes.md'), 'one\ntwo\nthree\n');
  hostGit('commit', '-q', '-am', 'two');
  execFileSync('tar', ['-cf', 'x.tar', 'notes.md'], { cwd: workspace });
}

async function markers(): Promise<string[]> {
  return (await readdir(workspace)).filter((name) => name.startsWith('PWN'));
}

/** Runs an argv call in the sandbox, whatever the policy says. */
function run(command: string, args: readonly string[]) {
  return host.execute(
    { id: 'c', name: 'sys/exec', input: { command, args: [...args], timeout_ms: 20_000 } },
    { ...runContext, signal: new AbortController().signal },
  );
}

function decide(command: string, args: readonly string[]): Promise<PolicyDecision> {
  return engine.decide(
    { id: 'c', name: 'sys/exec', input: { command, args: [...args] } },
    policyContext,
  );
}

/** As the runtime does: the call runs only when the policy allows it. */
async function governed(command: string, args: readonly string[]) {
  const decision = await decide(command, args);
  if (decision.action === 'allow') await run(command, args);
  return decision;
}

beforeAll(async () => {
  const backend = await detectBackend();
  if (backend.kind !== 'bwrap')
    throw new Error(`these calls run in the real sandbox (${backend.reason}); CI has bwrap`);
  root = await mkdtemp(path.join(os.tmpdir(), 'pincer-runs-'));
  workspace = path.join(root, 'workspace');
  await freshWorkspace();
  sandbox = await createSandbox({
    backend,
    settings: sandboxSettings({
      workspace,
      dataDir: path.join(root, 'data'),
      home: path.join(root, 'home'),
    }),
    pool: { size: 0, onlineSize: 0 },
  });
  host = registry.host({ allow: ['**'], workspace, executor: sandbox.executor });

  // The shipped manifest, autonomous, with the user's rules where its comment says to put them.
  const doc = await shippedClaw();
  doc.setIn(['spec', 'identity', 'inline', 'autonomy'], 'autonomous');
  addUserRules(doc, [
    {
      id: 'allow-tools',
      action: 'allow',
      scope: 'category',
      match: { category: 'shell' },
      conditions: { command: ['git *', 'tar *', 'sed *', 'split *'] },
    },
  ]);
  const file = await writeDocument(root, doc);
  const claw = await loadClaw(file, { contextDir: root });
  broker = new ApprovalBroker();
  engine = new PolicyEngine({
    rules: policyRules(claw),
    autonomy: 'autonomous',
    facts: (name) => registry.facts(name),
    context: { workspace, home: root },
    broker,
  });
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

/** Each payload of the report, and what the person is told it runs. */
const PAYLOADS: Array<[string, string[], RegExp]> = [
  ['git', ['ls-remote', '--u=touch PWN-ls-remote', '.'], /upload-pack/],
  ['git', ['clone', '--conf=core.fsmonitor=touch PWN-clone', '.', 'copy'], /core\.fsmonitor/],
  ['git', ['rebase', '--ex=touch PWN-rebase', 'HEAD~1'], /--exec/],
  ['git', ['push', '--ex=touch PWN-push', '.', 'HEAD:refs/heads/other'], /--exec/],
  ['git', ['grep', '-Otouch PWN-grep', 'one'], /open-files-in-pager/],
  ['git', ['grep', '--open=touch PWN-grep2', 'one'], /open-files-in-pager/],
  ['git', ['config', 'alias.x', '!touch PWN-alias'], /alias\.x/],
  ['git', ['config', 'core.fsmonitor', 'touch PWN-fsmonitor; false'], /core\.fsmonitor/],
  [
    'tar',
    ['-cf', 'out.tar', '--checkpoint=1', '--checkpoint-=exec=touch PWN-tar', 'notes.md'],
    /checkpoint-action/,
  ],
  ['sed', ['1e touch PWN-sed', 'notes.md'], /\be\b.*command/],
  ['sed', ['-n', '1e touch PWN-sed-n', 'notes.md'], /\be\b.*command/],
  ['split', ['--filter=touch PWN-split', 'notes.md'], /--filter/],
  ['split', ['--fil=touch PWN-split2', 'notes.md'], /--filter/],
];

describe('a rule allowing the program does not allow what the program would run', () => {
  it.each(PAYLOADS)('%s %j asks on its own, never for the session', async (command, args, why) => {
    await freshWorkspace();
    const decision = await governed(command, args);
    expect(decision).toMatchObject({ action: 'ask', sessionApprovable: false });
    expect(decision).not.toHaveProperty('sessionScope');
    expect((decision as { reason: string }).reason).toMatch(/runs another program|writes|runs/);
    expect((decision as { reason: string }).reason).toMatch(why);
    expect(await markers()).toEqual([]);
  });

  it('the config written by `git config` would have run on a later allowed `git status`', async () => {
    await freshWorkspace();
    for (const args of [
      ['config', 'alias.x', '!touch PWN-alias'],
      ['config', 'core.fsmonitor', 'touch PWN-fsmonitor; false'],
      ['status'],
      ['x'],
    ])
      await governed('git', args);
    expect(await markers()).toEqual([]);
  });

  it('the payloads are real: run directly in the sandbox, they run their command', async () => {
    await freshWorkspace();
    for (const [command, args] of PAYLOADS) {
      if (command === 'git' && args[0] === 'config') continue;
      await run(command, args);
    }
    // And the config payloads, followed by the innocent call that runs them.
    await run('git', ['config', 'alias.x', '!touch PWN-alias']);
    await run('git', ['x']);
    await run('git', ['config', 'core.fsmonitor', 'touch PWN-fsmonitor; false']);
    await run('git', ['status']);
    const made = await markers();
    for (const marker of [
      'PWN-ls-remote',
      'PWN-rebase',
      'PWN-grep',
      'PWN-grep2',
      'PWN-alias',
      'PWN-tar',
      'PWN-sed',
      'PWN-sed-n',
      'PWN-split',
      'PWN-split2',
    ])
      expect(made, marker).toContain(marker);
    // The fsmonitor write is stopped a second time by the sandbox, which pins core.fsmonitor
    // off above the repository's own config: the rule is the first line, not the only one.
    expect(made).not.toContain('PWN-fsmonitor');
  }, 60_000);

  it('the forms the rules were written for are allowed and run', async () => {
    await freshWorkspace();
    for (const [command, args, output] of [
      ['git', ['status', '--short'], /\[exit code 0\]/],
      ['git', ['log', '--oneline'], /two\n.*one/s],
      ['git', ['-c', 'color.ui=never', 'grep', '-n', 'two'], /notes\.md:2:two/],
      ['git', ['config', 'user.name', 'Someone'], /\[exit code 0\]/],
      ['git', ['config', '--get', 'alias.x'], /\[exit code 1\]/],
      ['tar', ['-tf', 'x.tar'], /notes\.md/],
      ['tar', ['-cf', 'y.tar', '--checkpoint=1', 'notes.md'], /\[exit code 0\]/],
      ['sed', ['-n', 'p', 'notes.md'], /one\ntwo\nthree/],
      ['sed', ['s/one/uno/;2d', 'notes.md'], /uno\nthree/],
      ['sed', ['--sandbox', '-n', 'p', 'notes.md'], /one/],
      ['split', ['-l', '1', 'notes.md', 'part-'], /\[exit code 0\]/],
    ] as const) {
      const decision = await decide(command, args);
      expect(decision, `${command} ${args.join(' ')}`).toMatchObject({
        action: 'allow',
        rule: 'default/allow-tools',
      });
      expect((await run(command, args)).content, `${command} ${args.join(' ')}`).toMatch(output);
    }
    expect(existsSync(path.join(workspace, 'part-aa'))).toBe(true);
    expect(await markers()).toEqual([]);
  }, 60_000);
});

describe('approve for session covers the exact call shown', () => {
  it('`sed -n p notes.md` approved for the session does not let `sed -n 1e…` run', async () => {
    await freshWorkspace();
    const session = new ApprovalBroker();
    const supervised = new PolicyEngine({
      rules: [
        {
          policy: 'p',
          id: 'ask-exec',
          action: 'require-approval',
          scope: 'all',
          conditions: { tool: 'sys/exec' },
        },
      ],
      autonomy: 'supervised',
      facts: (name) => registry.facts(name),
      context: { workspace, home: root },
      broker: session,
    });
    const ask = (args: string[]) =>
      supervised.decide(
        { id: 'c', name: 'sys/exec', input: { command: 'sed', args } },
        policyContext,
      );
    const shown = await ask(['-n', 'p', 'notes.md']);
    expect(shown).toMatchObject({ action: 'ask', sessionApprovable: true });
    const answer = session.request({
      id: 'a1',
      ...policyContext,
      call: { id: 'c', name: 'sys/exec', input: { command: 'sed', args: ['-n', 'p', 'notes.md'] } },
      reason: 'r',
      sessionApprovable: true,
      ...(shown.action === 'ask' && shown.sessionScope ? { sessionScope: shown.sessionScope } : {}),
      signal: new AbortController().signal,
    });
    expect(session.resolve('a1', 'approve-for-session', 'test')).toBe('resolved');
    await answer;
    expect(await ask(['-n', 'p', 'notes.md'])).toMatchObject({ action: 'allow' });
    // The payload of the report, then the same shape with another script or option.
    const payload = await ask(['-n', '1e id>PWN', 'notes.md']);
    if (payload.action === 'allow') await run('sed', ['-n', '1e id>PWN', 'notes.md']);
    expect(payload).toMatchObject({ action: 'ask', sessionApprovable: false });
    expect(await markers()).toEqual([]);
    for (const args of [
      ['-n', '1p', 'notes.md'],
      ['-i', 'p', 'notes.md'],
      ['-n', 'p'],
    ])
      expect((await ask(args)).action, args.join(' ')).toBe('ask');
  });
});
