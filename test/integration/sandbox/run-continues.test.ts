/**
 * "The run goes on", literally: an agent run through the real runtime whose model makes escape
 * attempts through the sandbox (a command past its deadline, a read of /etc/shadow, a worker
 * that crashes) gets an error result for each, and its next turn's calls still run.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { viaProvider } from '../../../src/main/core/models/access.js';
import type { ModelRequest } from '../../../src/main/core/models/types.js';
import { AgentRuntime } from '../../../src/main/core/runtime/runtime.js';
import { RunStore } from '../../../src/main/core/runtime/store.js';
import { createSandbox, type Sandbox } from '../../../src/main/core/sandbox/sandbox.js';
import { sandboxSettings } from '../../../src/main/core/sandbox/settings.js';
import { type Db, openDatabase } from '../../../src/main/core/storage/database.js';
import { BUILTIN_TOOLS } from '../../../src/main/core/tools/builtins/index.js';
import { ToolRegistry } from '../../../src/main/core/tools/registry.js';
import { UNGOVERNED } from '../../support/runtime-hooks.js';
import { ScriptedProvider, type ScriptedReply } from '../../support/scripted-provider.js';
import { hostileTools } from './fixtures/hostile-tools.js';

let dir = '';
let workspace = '';
let db: Db;
let sandbox: Sandbox;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-run-goes-on-'));
  workspace = path.join(dir, 'workspace');
  await mkdir(workspace);
  await writeFile(path.join(workspace, 'notes.md'), 'the run went on');
  db = openDatabase(path.join(dir, 'runs.db'), { vectors: false });
  sandbox = await createSandbox({
    settings: sandboxSettings({ workspace, dataDir: dir }),
    pool: {
      size: 1,
      onlineSize: 0,
      modules: [path.join(import.meta.dirname, 'fixtures', 'hostile-tools.ts')],
    },
  });
}, 30_000);

afterAll(async () => {
  await sandbox?.close();
  db?.close();
  await rm(dir, { recursive: true, force: true });
});

it('48. failed escapes are error results; the same run calls tools again and completes', async () => {
  const results = (request: ModelRequest) =>
    request.messages.flatMap((m) => m.content.filter((b) => b.type === 'tool_result'));
  let last: ModelRequest | undefined;
  const model = new ScriptedProvider((request): ScriptedReply => {
    last = request;
    const seen = results(request).length;
    if (seen === 0)
      return {
        toolCalls: [
          { name: 'sys/exec', input: { command: 'sleep', args: ['30'], timeout_ms: 300 } },
          { name: 'fs/read', input: { path: '/etc/shadow' } },
          { name: 'hostile/crash', input: {} },
        ],
      };
    if (seen === 3) return { toolCalls: [{ name: 'fs/read', input: { path: 'notes.md' } }] };
    return { text: 'done' };
  });
  const registry = new ToolRegistry();
  for (const tool of [...BUILTIN_TOOLS, ...hostileTools]) registry.register(tool);
  const runtime = new AgentRuntime({
    ...UNGOVERNED,
    store: new RunStore(db),
    model: viaProvider(model, 'scripted'),
    tools: registry.host({ allow: ['**'], workspace, executor: sandbox.executor }),
  });
  const result = await runtime.start({ text: 'try to escape' }).done;
  expect(result.outcome).toBe('completed');
  expect(result.turns).toBe(3);
  const contents = results(last as ModelRequest).map((b) => ('content' in b ? b.content : ''));
  const text = JSON.stringify(contents);
  expect(text).toContain('-32014');
  expect(text).toContain('outside the workspace');
  expect(text).toContain('the tool worker stopped');
  expect(text).toContain('the run went on');
});
