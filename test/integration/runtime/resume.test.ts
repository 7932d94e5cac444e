/**
 * Durability: a process running the loop is killed with SIGKILL in the middle of a tool round;
 * a new process lists the interrupted run and resumes it without repeating the side effect that
 * completed, without re-running the one that may have half-happened, and without losing or
 * duplicating a message.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { viaProvider } from '../../../src/main/core/models/access.js';
import { AgentRuntime } from '../../../src/main/core/runtime/runtime.js';
import type { RunId } from '../../../src/main/core/terms.js';
import { textOf } from '../../../src/shared/messages.js';
import { UNGOVERNED } from '../../support/runtime-hooks.js';
import { ScriptedProvider } from '../../support/scripted-provider.js';
import { crashScript } from './fixtures/crash-script.js';
import { tempStore, toolHost } from './harness.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(() => cleanup?.());

it('resumes a run killed with SIGKILL mid-tool, repeating no completed side effect', async () => {
  const temp = await tempStore();
  cleanup = temp.cleanup;
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(import.meta.dirname, 'fixtures/crashing-run.ts'),
      temp.file,
      temp.dir,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = Date.now() + 20_000;
  while (!existsSync(path.join(temp.dir, 'slow-started'))) {
    if (Date.now() > deadline || child.exitCode !== null)
      throw new Error(`child did not reach the slow tool: ${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  const runId = stdout.trim() as RunId;

  const { host, log } = toolHost({
    append: { run: () => ({ content: 'appended again' }) },
    look: { readOnly: true, run: () => ({ content: 'looked again' }) },
    slow: { run: () => ({ content: 'slow ran again' }) },
  });
  const runtime = new AgentRuntime({
    ...UNGOVERNED,
    store: temp.store,
    model: viaProvider(new ScriptedProvider(crashScript), 'm'),
    tools: host,
  });
  expect(runtime.interrupted().map((run) => [run.id, run.state])).toEqual([
    [runId, 'WAITING_TOOL'],
  ]);

  const handle = runtime.resume(runId);
  const result = await handle.done;
  expect(result).toMatchObject({ outcome: 'completed', state: 'IDLE' });
  // The completed side effect happened once, in the killed process; the half-done one was not retried.
  expect(await readFile(path.join(temp.dir, 'effects.log'), 'utf8')).toBe('A\n');
  // Nothing ran again: both finished calls were recorded before the kill.
  expect(log).toEqual([]);
  const calls = temp.store.toolCalls(runId);
  expect(calls.map((c) => [c.callId, c.status])).toEqual([
    ['c-append', 'completed'],
    ['c-look', 'completed'],
    ['c-slow', 'interrupted'],
  ]);
  const branch = temp.store
    .branch(temp.store.getRun(runId)?.lastMessageId ?? null)
    .map((m) => m.message);
  expect(branch.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  expect(branch[2]?.content).toMatchObject([
    { toolUseId: 'c-append', content: 'appended' },
    { toolUseId: 'c-look', content: 'looked' },
    {
      toolUseId: 'c-slow',
      isError: true,
      content: expect.stringContaining('was interrupted while running and was not repeated'),
    },
  ]);
  expect(textOf(branch[3] ?? { role: 'assistant', content: [] })).toBe('all done');
  const replayed = handle.events.events.filter((e) => e.type === 'tool.finished' && e.replayed);
  expect(replayed).toHaveLength(3);
  expect(runtime.interrupted()).toEqual([]);
  expect(() => runtime.resume(runId)).toThrow('already completed');
}, 60_000);
