/**
 * A head start for the tool: when the model begins writing a call, the worker that will run it
 * starts while the arguments still stream (the runtime calls `prepare` on `tool_call_start`).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { viaProvider } from '../../../src/main/core/models/access.js';
import { ScriptedProvider } from '../../../src/main/core/models/scripted.js';
import { AgentRuntime } from '../../../src/main/core/runtime/runtime.js';
import { detectBackend } from '../../../src/main/core/sandbox/backend.js';
import { Launcher } from '../../../src/main/core/sandbox/launcher.js';
import { WorkerPool } from '../../../src/main/core/sandbox/pool.js';
import { sandboxSettings } from '../../../src/main/core/sandbox/settings.js';
import { fsRead } from '../../../src/main/core/tools/builtins/fs.js';
import { BUILTIN_TOOLS } from '../../../src/main/core/tools/builtins/index.js';
import { memorySearch } from '../../../src/main/core/tools/builtins/memory.js';
import { netFetch } from '../../../src/main/core/tools/builtins/net.js';
import { ToolRegistry } from '../../../src/main/core/tools/registry.js';
import type { Tool, ToolExecutor } from '../../../src/main/core/tools/types.js';
import { UNGOVERNED } from '../../support/runtime-hooks.js';
import { drain, tempStore, toolHost } from '../runtime/harness.js';

let dir = '';
let workspace = '';
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-prepare-'));
  workspace = path.join(dir, 'workspace');
  await mkdir(workspace);
  await writeFile(path.join(workspace, 'note.txt'), 'ready before the call\n');
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
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
      expect(output.content).toContain('ready before the call');
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
