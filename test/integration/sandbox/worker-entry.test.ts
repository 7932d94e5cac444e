/**
 * Where tool workers come from. The desktop app's build carries its own worker beside its main
 * bundle (out/main/sandbox-worker.js), and inside Electron the worker runs on the app's binary in
 * Node mode. The CLI bundle's worker is covered by every `pincer run` test; this is the app's.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultWorkerEntry } from '../../../src/main/core/sandbox/pool.js';
import { createSandbox } from '../../../src/main/core/sandbox/sandbox.js';
import { sandboxSettings } from '../../../src/main/core/sandbox/settings.js';
import { fsRead } from '../../../src/main/core/tools/builtins/fs.js';
import type { Tool, ToolContext } from '../../../src/main/core/tools/types.js';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const desktopMain = path.join(repoRoot, 'out/main');

let dir = '';
let workspace = '';
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-worker-entry-'));
  workspace = path.join(dir, 'workspace');
  await mkdir(workspace);
  await writeFile(path.join(workspace, 'note.txt'), 'read by the app worker\n');
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
      settings: sandboxSettings({ workspace, dataDir: dir }),
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
      expect(env.HOME).toBe(workspace);
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
      expect(output).toMatchObject({ content: expect.stringContaining('read by the app worker') });
      expect(output.isError).toBeFalsy();
      // Confined as any worker: the host's files stay out of reach.
      const outside = await sandbox.executor.run(fsRead, { path: '/etc/hostname' }, context());
      expect(outside.isError).toBe(true);
    } finally {
      await sandbox.close();
    }
  }, 60_000);
});
