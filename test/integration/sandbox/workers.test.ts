/**
 * Tool workers: where they come from, and when they start. The desktop app's build carries its
 * own worker beside its main bundle (out/main/sandbox-worker.js), and inside Electron the worker
 * runs on the app's binary in Node mode (the CLI bundle's worker is covered by every `pincer run`
 * test). And a head start: when the model begins writing a call, the worker that will run it
 * starts while the arguments still stream (the runtime calls `prepare` on `tool_call_start`).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { viaProvider } from '../../../src/main/core/models/access.js';
import { AgentRuntime } from '../../../src/main/core/runtime/runtime.js';
import { detectBackend } from '../../../src/main/core/sandbox/backend.js';
import { Launcher } from '../../../src/main/core/sandbox/launcher.js';
import { defaultWorkerEntry, WorkerPool } from '../../../src/main/core/sandbox/pool.js';
import { createSandbox } from '../../../src/main/core/sandbox/sandbox.js';
import { sandboxSettings } from '../../../src/main/core/sandbox/settings.js';
import { fsRead } from '../../../src/main/core/tools/builtins/fs.js';
import { BUILTIN_TOOLS } from '../../../src/main/core/tools/builtins/index.js';
import { memorySearch } from '../../../src/main/core/tools/builtins/memory.js';
import { netFetch } from '../../../src/main/core/tools/builtins/net.js';
import { ToolRegistry } from '../../../src/main/core/tools/registry.js';
import type { Tool, ToolContext, ToolExecutor } from '../../../src/main/core/tools/types.js';
import { UNGOVERNED } from '../../support/runtime-hooks.js';
import { ScriptedProvider } from '../../support/scripted-provider.js';
import { drain, tempStore, toolHost } from '../runtime/harness.js';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const desktopMain = path.join(repoRoot, 'out/main');

let dir = '';
let workspace = '';
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-workers-'));
  workspace = path.join(dir, 'workspace');
  await mkdir(workspace);
  await writeFile(path.join(workspace, 'note.txt'), 'read by a worker\n');
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const context = (): ToolContext => ({ signal: new AbortController().signal, workspace, env: {} });

describe('the worker entry', () => {
  it('under Electron runs the worker on the app binary in Node mode; under Node adds nothing', () => {
    const electron = defaultWorkerEntry(desktopMain, { electron: '39.2.0' });
    expect(electron.env).toEqual({ ELECTRON_RUN_AS_NODE: '1' });
    const node = defaultWorkerEntry(desktopMain, {});
    expect(node.env).toBeUndefined();
  });

  it('hands its environment to the worker process, on top of the minimal one', async () => {
    const module = path.join(dir, 'env-tool.mjs');
    await writeFile(
      module,
      `export const envTool = {
        name: 'test/env', description: 'reports its environment', inputSchema: { type: 'object' },
        annotations: {}, category: 'test', tier: 'safe', timeoutMs: 10000,
        maxOutputBytes: 4096, source: 'builtin',
        run: async () => ({ content: JSON.stringify(process.env) }),
      };\n`,
    );
    const { envTool } = (await import(module)) as { envTool: Tool };
    const base = defaultWorkerEntry();
    const sandbox = await createSandbox({
      // The module must not sit in the data dir: a denial wins over everything but the workspace.
      settings: sandboxSettings({ workspace, dataDir: path.join(dir, 'data') }),
      pool: {
        size: 1,
        onlineSize: 0,
        modules: [module],
        entry: { ...base, env: { PINCER_WORKER_MARK: 'from-the-entry' } },
      },
    });
    try {
      const output = await sandbox.executor.run(envTool, {}, context());
      expect(output.isError).toBeFalsy();
      const env = JSON.parse(output.content) as Record<string, string>;
      expect(env.PINCER_WORKER_MARK).toBe('from-the-entry');
      expect(env.HOME).not.toBe(workspace);
      expect(env.GIT_CONFIG_GLOBAL).toBe('/dev/null');
    } finally {
      await sandbox.close();
    }
  }, 60_000);
});

const built = existsSync(path.join(desktopMain, 'index.js'));
if (!built)
  console.warn('[sandbox] skipping the desktop worker test: the app is not built (npm run build)');

describe.skipIf(!built)("the desktop app's own worker (out/main)", () => {
  it('is the one the app finds, and runs a file tool inside the sandbox', async () => {
    const entry = defaultWorkerEntry(desktopMain, {});
    expect(entry.file).toBe(path.join(desktopMain, 'sandbox-worker.js'));
    expect(entry.execArgv).toEqual([]);
    const sandbox = await createSandbox({
      settings: sandboxSettings({ workspace, dataDir: dir }),
      pool: { size: 1, onlineSize: 0, entry },
    });
    try {
      const output = await sandbox.executor.run(fsRead, { path: 'note.txt' }, context());
      expect(output).toMatchObject({ content: expect.stringContaining('read by a worker') });
      expect(output.isError).toBeFalsy();
      // Confined as any worker: the host's files stay out of reach.
      const outside = await sandbox.executor.run(fsRead, { path: '/etc/hostname' }, context());
      expect(outside.isError).toBe(true);
    } finally {
      await sandbox.close();
    }
  }, 60_000);
});

describe('prepare', () => {
  it("starts the worker of the tool's lane once, and nothing for a tool that runs on the host", async () => {
    const settings = sandboxSettings({ workspace, dataDir: dir });
    const launcher = new Launcher(await detectBackend(), settings);
    const pool = new WorkerPool({ launcher, size: 2, onlineSize: 1, prestart: false });
    try {
      expect(pool.size).toBe(0);
      pool.prepare(fsRead);
      expect(pool.size).toBe(1);
      pool.prepare(fsRead);
      expect(pool.size).toBe(1);
      pool.prepare(memorySearch);
      expect(pool.size).toBe(1);
      // net/fetch runs in the online lane: a worker of its own.
      pool.prepare(netFetch);
      expect(pool.size).toBe(2);
      // The call takes the worker already starting instead of starting another.
      const output = await pool.run(
        fsRead,
        { path: 'note.txt' },
        { signal: new AbortController().signal, workspace, env: {} },
      );
      expect(output.content).toContain('read by a worker');
      expect(pool.size).toBe(2);
    } finally {
      await pool.close();
    }
  }, 60_000);

  it('reaches the executor through the tool host, for tools the run may use only', () => {
    const prepared: string[] = [];
    const executor: ToolExecutor = {
      run: async () => ({ content: 'unused' }),
      prepare: (tool: Tool) => prepared.push(tool.name),
    };
    const registry = new ToolRegistry();
    for (const tool of BUILTIN_TOOLS) registry.register(tool);
    const host = registry.host({ allow: ['fs/read'], workspace, executor });
    host.prepare?.('fs/read');
    host.prepare?.('fs/write');
    host.prepare?.('no/such-tool');
    expect(prepared).toEqual(['fs/read']);
  });

  it('is called by the runtime as the model starts writing the call, before the call runs', async () => {
    const temp = await tempStore();
    try {
      const { host, log } = toolHost({ 'demo/slow': { run: () => ({ content: 'done' }) } });
      const runtime = new AgentRuntime({
        ...UNGOVERNED,
        store: temp.store,
        model: viaProvider(
          new ScriptedProvider((request) =>
            request.messages.some((m) => m.content.some((b) => b.type === 'tool_result'))
              ? { text: 'finished' }
              : { toolCalls: [{ name: 'demo/slow', input: {} }], delayMs: 20 },
          ),
          'scripted',
        ),
        tools: { ...host, prepare: (name) => log.push(`prepare ${name}`) },
      });
      const handle = runtime.start({ text: 'go' });
      await drain(handle.events.all());
      await handle.done;
      expect(log).toEqual(['prepare demo/slow', 'start demo/slow', 'end demo/slow']);
    } finally {
      await temp.cleanup();
    }
  });
});
