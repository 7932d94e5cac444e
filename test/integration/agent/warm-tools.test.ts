/**
 * Warm tool workers in a long-lived agent: a worker per lane is started when the agent opens, a
 * tool call runs on one started before it, each call gets a worker of its own (confined exactly
 * as a cold one, with nothing left from an earlier call), and closing the agent (or killing its
 * process) leaves no worker behind. A one-shot agent starts none before a call.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { openAgent } from '../../../src/main/core/agent/index.js';
import { viaProvider } from '../../../src/main/core/models/access.js';
import { createSandbox } from '../../../src/main/core/sandbox/sandbox.js';
import { sandboxSettings } from '../../../src/main/core/sandbox/settings.js';
import { createSecretStore } from '../../../src/main/core/secrets/index.js';
import type { SessionId } from '../../../src/main/core/terms.js';
import type { Tool, ToolContext } from '../../../src/main/core/tools/types.js';
import { APP_DIR } from '../../support/assistant-harness.js';
import { ScriptedProvider } from '../../support/scripted-provider.js';
import { FAST_SCRYPT } from '../../support/secrets.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-warm-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const alive = (pid: number) => existsSync(`/proc/${pid}`);

function agentOptions(provider: ScriptedProvider) {
  const dataDir = path.join(dir, 'data');
  return {
    dataDir,
    appDir: APP_DIR,
    model: { kind: 'fixed' as const, access: viaProvider(provider, 'scripted'), label: 'scripted' },
    secrets: createSecretStore({
      dataDir,
      env: { PINCER_KEYCHAIN: 'off', PINCER_VAULT_PASSPHRASE: 'test-passphrase' },
      scrypt: FAST_SCRYPT,
    }),
  };
}

it('a long-lived agent runs a tool call on a worker started before it, then leaves none at close', async () => {
  const provider = new ScriptedProvider([
    { toolCalls: [{ name: 'fs/list', input: { path: '.' } }] },
    { text: ['Listed.'] },
    { toolCalls: [{ name: 'fs/list', input: { path: '.' } }] },
    { text: ['Listed again.'] },
  ]);
  const agent = await openAgent({ ...agentOptions(provider), warmTools: true });
  const seen = new Set<number>();
  try {
    const workers = agent.toolWorkers();
    await workers.ready();
    // One per lane (offline, online), started before anyone asked.
    const before = agent.toolWorkers();
    expect(before.starts).toBe(2);
    expect(before.idle).toHaveLength(2);
    for (const pid of before.idle) {
      expect(alive(pid)).toBe(true);
      seen.add(pid);
    }

    const first = agent.runtime.start({ text: 'list the files' });
    expect((await first.done).outcome).toBe('completed');
    const result = provider.requests[1]?.messages.at(-1)?.content[0];
    expect(result).toMatchObject({ type: 'tool_result' });
    expect((result as { isError?: boolean }).isError).toBeFalsy();
    // The call took a worker that was already running: the only start since is the lane's next
    // (a call that found none would have started its own as well). The one it ran on is gone.
    await agent.toolWorkers().ready();
    const after = agent.toolWorkers();
    expect(after.starts).toBe(3);
    await vi.waitFor(() => expect(before.idle.filter(alive)).toHaveLength(1));
    const used = before.idle.find((pid) => !alive(pid));
    expect(after.idle).not.toContain(used);
    expect(after.idle).toHaveLength(2);
    for (const pid of after.idle) seen.add(pid);

    // The next call, too, finds its worker ready.
    await agent.toolWorkers().ready();
    const second = agent.runtime.start({
      text: 'again',
      sessionId: first.sessionId as SessionId,
    });
    expect((await second.done).outcome).toBe('completed');
    await agent.toolWorkers().ready();
    expect(agent.toolWorkers().starts).toBe(4);
    for (const pid of agent.toolWorkers().idle) seen.add(pid);
  } finally {
    await agent.close();
  }
  expect(seen.size).toBe(4);
  expect([...seen].filter(alive)).toEqual([]);
}, 60_000);

it('a one-shot agent starts no worker before a call', async () => {
  const provider = new ScriptedProvider([{ text: ['Hello.'] }]);
  const agent = await openAgent(agentOptions(provider));
  try {
    expect(agent.toolWorkers().starts).toBe(0);
    const text = agent.runtime.start({ text: 'hi' });
    expect((await text.done).outcome).toBe('completed');
    expect(agent.toolWorkers().starts).toBe(0);
    expect(agent.toolWorkers().idle).toEqual([]);
  } finally {
    await agent.close();
  }
});

/** A tool that reports what its worker sees, and what an earlier call may have left in it. */
async function probeTool(workspace: string): Promise<{ tool: Tool; module: string }> {
  const module = path.join(dir, 'probe-tool.mjs');
  const paths = [os.homedir(), dir, path.join(dir, 'data'), '/etc/shadow', '/root', workspace];
  await writeFile(
    module,
    `import { accessSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
    const paths = ${JSON.stringify(paths)};
    export const probe = {
      name: 'test/probe', description: 'reports its view', inputSchema: { type: 'object' },
      annotations: {}, category: 'test', tier: 'safe', timeoutMs: 10000,
      maxOutputBytes: 65536, source: 'builtin',
      run: async () => {
        const readable = {};
        for (const p of paths) {
          try { accessSync(p); readable[p] = true; } catch { readable[p] = false; }
        }
        const leftover = { calls: globalThis.probeCalls ?? 0, tmp: existsSync('/tmp/probe-was-here') };
        globalThis.probeCalls = leftover.calls + 1;
        writeFileSync('/tmp/probe-was-here', 'x');
        const limits = readFileSync('/proc/self/limits', 'utf8');
        const env = { ...process.env };
        // A per-launch home folder on backends without a fixed one: compare its shape only.
        env.HOME = env.HOME ? 'set' : 'unset';
        return { content: JSON.stringify({ readable, limits, env, cwd: process.cwd(), uid: process.getuid(), leftover }) };
      },
    };\n`,
  );
  const { probe } = (await import(module)) as { probe: Tool };
  return { tool: probe, module };
}

it('a warm worker is confined exactly as a cold one and keeps nothing from the call before', async () => {
  const workspace = path.join(dir, 'workspace');
  await mkdir(workspace);
  const { tool, module } = await probeTool(workspace);
  const context = (): ToolContext => ({
    signal: new AbortController().signal,
    workspace,
    env: {},
  });
  const settings = sandboxSettings({ workspace, dataDir: path.join(dir, 'data') });
  const views: Record<string, unknown>[] = [];
  for (const start of ['first-use', 'warm'] as const) {
    const sandbox = await createSandbox({ settings, pool: { modules: [module] }, start });
    try {
      await sandbox.workers().ready();
      for (let call = 0; call < 2; call++) {
        const output = await sandbox.executor.run(tool, {}, context());
        expect(output.isError).toBeFalsy();
        views.push({ start, call, ...(JSON.parse(output.content) as Record<string, unknown>) });
      }
    } finally {
      await sandbox.close();
    }
  }
  expect(views).toHaveLength(4);
  const [cold = {}, coldAgain = {}, warm = {}, warmAgain = {}] = views;
  const view = (v: Record<string, unknown>) => {
    const { start: _s, call: _c, leftover: _l, ...rest } = v;
    return rest;
  };
  expect(view(warm)).toEqual(view(cold));
  expect(view(warmAgain)).toEqual(view(cold));
  // Sanity: the view is a confined one.
  expect((cold.readable as Record<string, boolean>)['/etc/shadow']).toBe(false);
  expect((cold.readable as Record<string, boolean>)[os.homedir()]).toBe(false);
  // A cold pool reuses its worker (one user, one process); a warm pool never does.
  expect(coldAgain.leftover).toEqual({ calls: 1, tmp: true });
  expect(warm.leftover).toEqual({ calls: 0, tmp: false });
  expect(warmAgain.leftover).toEqual({ calls: 0, tmp: false });
}, 60_000);

it('killing the process that holds warm workers leaves none behind', async () => {
  const workspace = path.join(dir, 'workspace');
  await mkdir(workspace);
  const tsx = createRequire(import.meta.url).resolve('tsx');
  const holder: ChildProcess = spawn(
    process.execPath,
    ['--import', tsx, path.join(import.meta.dirname, 'fixtures', 'hold-warm.ts'), workspace],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const pids = await new Promise<number[]>((resolve, reject) => {
    let out = '';
    holder.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = /^warm (.+)$/m.exec(out);
      if (line?.[1]) resolve(line[1].split(',').map(Number));
    });
    holder.on('exit', (code) => reject(new Error(`the holder exited early (${code})`)));
  });
  expect(pids).toHaveLength(2);
  for (const pid of pids) expect(alive(pid)).toBe(true);
  holder.kill('SIGKILL');
  await vi.waitFor(() => expect(pids.filter(alive)).toEqual([]), { timeout: 10_000 });
}, 60_000);
