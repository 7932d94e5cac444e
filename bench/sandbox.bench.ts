/**
 * Sandbox overhead (#8): a no-op JS tool through the worker pool against the same tool called
 * in-process, and `sys/exec true` through the active backend (bwrap here: namespaces, prlimit,
 * a pids cgroup when root) against a bare child_process.spawn of `true`.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createSandbox } from '../src/main/core/sandbox/sandbox.js';
import { sandboxSettings } from '../src/main/core/sandbox/settings.js';
import { sysExec } from '../src/main/core/tools/builtins/exec.js';
import { inProcessExecutor, type Tool, type ToolContext } from '../src/main/core/tools/types.js';
import { measure, report } from './lib.js';

const NOOP_MODULE = `export const noop = {
  name: 'bench/noop', description: 'no-op', inputSchema: { type: 'object' }, annotations: {},
  category: 'bench', tier: 'safe', timeoutMs: 10000, maxOutputBytes: 1024, source: 'builtin',
  run: async () => ({ content: 'ok' }),
};\n`;

function bareSpawn(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('true', [], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}

export async function run(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-bench-sandbox-'));
  const workspace = path.join(dir, 'workspace');
  const modulePath = path.join(dir, 'noop-tool.mjs');
  await writeFile(modulePath, NOOP_MODULE);
  const { noop } = (await import(modulePath)) as { noop: Tool };
  await import('node:fs/promises').then((fs) => fs.mkdir(workspace));
  const sandbox = await createSandbox({
    settings: sandboxSettings({ workspace }),
    pool: { size: 1, onlineSize: 0, modules: [modulePath] },
  });
  const context: ToolContext = { signal: new AbortController().signal, workspace, env: {} };
  try {
    console.log(`backend: ${sandbox.backend.kind} (${sandbox.backend.reason})`);
    const js = await measure(
      [
        { name: 'no-op tool, in-process', fn: () => inProcessExecutor.run(noop, {}, context) },
        { name: 'no-op tool, worker pool', fn: () => sandbox.executor.run(noop, {}, context) },
      ],
      { samples: 15, iterations: 50, warmup: 2 },
    );
    report('JS tool call: worker pool vs in-process', js);
    const exec = await measure(
      [
        { name: 'true, bare child_process.spawn', fn: bareSpawn },
        {
          name: `sys/exec true, ${sandbox.backend.kind}`,
          fn: () => sandbox.executor.run(sysExec, { command: 'true' }, context),
        },
      ],
      { samples: 15, iterations: 4, warmup: 1 },
    );
    report(`command: sys/exec through ${sandbox.backend.kind} vs bare spawn`, exec);
  } finally {
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
  }
}
