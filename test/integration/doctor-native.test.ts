/**
 * `pincer doctor` names a native module that did not build, with the line that fixes it: the
 * built CLI run from a copy of the install whose better-sqlite3 has no compiled .node file (what
 * an install leaves when the package's install script was skipped or its compiler was missing).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkNativeModules } from '../../src/main/core/doctor/native-check.js';
import { builtCli, repoRoot } from '../support/cli-run.js';

const run = promisify(execFile);
let scratch = '';

beforeAll(async () => {
  if (!existsSync(builtCli)) throw new Error('dist/cli.js is missing: run `npm run build` first');
  scratch = await mkdtemp(path.join(os.tmpdir(), 'pincer-native-'));
});
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

interface NativeCheck {
  status: string;
  summary: string;
  details: { loaded: string[]; failed: Array<{ name: string; fix: string }> };
}

it('loads every native module of this install', async () => {
  const check = (await checkNativeModules()) as unknown as NativeCheck;
  for (const name of ['better-sqlite3', 'sqlite-vec', 'node-llama-cpp'])
    expect(check.details.loaded, check.summary).toContain(name);
  expect(check.status).not.toBe('fail');
});

it('the built CLI reports a better-sqlite3 without its .node file, with the fix, and fails', async () => {
  // An install: the built CLI, package.json, node_modules linked but for a broken better-sqlite3.
  const app = path.join(scratch, 'app');
  await mkdir(path.join(app, 'node_modules'), { recursive: true });
  await cp(path.join(repoRoot, 'dist'), path.join(app, 'dist'), { recursive: true });
  await cp(path.join(repoRoot, 'package.json'), path.join(app, 'package.json'));
  for (const entry of await readdir(path.join(repoRoot, 'node_modules'))) {
    if (entry === 'better-sqlite3' || entry === '.bin') continue;
    await symlink(
      path.join(repoRoot, 'node_modules', entry),
      path.join(app, 'node_modules', entry),
    );
  }
  const broken = path.join(app, 'node_modules/better-sqlite3');
  await mkdir(broken);
  for (const part of ['package.json', 'lib'])
    await cp(path.join(repoRoot, 'node_modules/better-sqlite3', part), path.join(broken, part), {
      recursive: true,
    });
  const home = path.join(scratch, 'home');
  const result = await run(process.execPath, [path.join(app, 'dist/cli.js'), 'doctor', '--json'], {
    env: { ...process.env, PINCER_HOME: home },
    timeout: 120_000,
  }).catch((error: { code?: number; stdout?: string; stderr?: string }) => error);
  const report = JSON.parse(result.stdout ?? '{}') as {
    status: string;
    checks: Array<{ id: string } & NativeCheck>;
  };
  const native = report.checks.find((check) => check.id === 'native-modules');
  expect(native?.status).toBe('fail');
  expect(native?.details.failed.map((failure) => failure.name)).toEqual(['better-sqlite3']);
  expect(native?.summary).toMatch(
    /^better-sqlite3 did not load \(Could not locate the bindings file.*\): npm rebuild better-sqlite3/,
  );
  expect(report.status).toBe('fail');
  expect('code' in result ? result.code : 0).toBe(1);
});
