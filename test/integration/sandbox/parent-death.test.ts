/**
 * Killing Pincer itself (SIGKILL, no cleanup code runs) must not leave a sandboxed command, its
 * grandchildren or a tool worker running: bwrap's die-with-parent and the PID namespace end them.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { detectBackend } from '../../../src/main/core/sandbox/backend.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let workspace = '';
let holder: ChildProcess | undefined;

afterAll(async () => {
  holder?.kill('SIGKILL');
  if (workspace) await rm(workspace, { recursive: true, force: true });
});

const sizeOf = (file: string) =>
  stat(file).then(
    (info) => info.size,
    () => 0,
  );

it('47. killing the parent kills the confined command, its grandchildren and the workers', async () => {
  const backend = await detectBackend();
  if (backend.kind !== 'bwrap') throw new Error(`needs bubblewrap: ${backend.reason}`);
  workspace = await mkdtemp(path.join(os.tmpdir(), 'pincer-parent-death-'));
  const marker = String(600_000 + Math.floor(Math.random() * 99_999));
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  holder = spawn(
    process.execPath,
    [
      '--import',
      tsx,
      path.join(import.meta.dirname, 'fixtures', 'hold-sandbox.ts'),
      workspace,
      marker,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    holder?.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('started')) resolve();
    });
    holder?.on('exit', (code) => reject(new Error(`the holder exited early (${code})`)));
  });
  const tick = path.join(workspace, 'tick');
  for (let i = 0; i < 100 && (await sizeOf(tick)) === 0; i++) await sleep(50);
  expect(await sizeOf(tick)).toBeGreaterThan(0);
  const running = () => execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
  expect(running()).toContain(`sleep ${marker}`);
  expect(running()).toContain(workspace);

  holder.kill('SIGKILL');
  await sleep(500);
  const settled = await sizeOf(tick);
  await sleep(400);
  expect(await sizeOf(tick)).toBe(settled);
  expect(running()).not.toContain(`sleep ${marker}`);
  // Every bwrap (command and worker) carried the workspace on its command line.
  expect(running()).not.toContain(workspace);
});
