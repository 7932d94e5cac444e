/**
 * Issue 24, clear errors and limits at the command line (the BUILT cli where a process matters):
 * numeric options out of range are usage errors, a message over the gateway's limit is refused
 * before any model is loaded, and a reader that goes away (`pincer --help | head -1`) ends the
 * CLI quietly.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_MESSAGE_CHARS } from '../../../src/shared/ipc.js';
import { builtCli, runBuiltCli, runCliInProcess } from '../../support/cli-run.js';

let home = '';
beforeAll(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'pincer-limits-'));
});
afterAll(() => rm(home, { recursive: true, force: true }));

const env = () => ({ ...process.env, PINCER_HOME: path.join(home, 'data'), HOME: home });
const pincer = (...args: string[]) => runBuiltCli(args, { env: env() });

describe('numeric options', () => {
  it.each([
    ['audit', '--limit', '-1'],
    ['audit', '--limit', '0'],
    ['audit', '--limit', 'abc'],
    ['audit', '--limit', '1e3'],
    ['audit', '--limit', '99999999999999999999'],
    ['memory', 'search', 'x', '--limit', '101'],
    ['run', '--max-tokens', 'NaN', 'hi'],
    ['run', '--temperature', '-1', 'hi'],
    ['run', '--timeout', '0', 'hi'],
  ])('pincer %s %s %s ... is a usage error (exit 2) naming the range', async (...args) => {
    const result = await runCliInProcess(args, { dataDir: path.join(home, 'data') });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/argument '.*' is invalid\. expected an? (integer|number) from/);
  });

  it('a limit in range still works', async () => {
    const result = await runCliInProcess(['audit', '--limit', '5'], {
      dataDir: path.join(home, 'data'),
    });
    expect(result).toMatchObject({ code: 0, stdout: 'the audit trail is empty\n' });
  });
});

describe('message size', () => {
  it('a message over the limit the gateway applies is refused with exit 2', async () => {
    // One argv string may hold 128 KiB on Linux: enough to pass the 100 000-character limit.
    const result = await pincer('run', 'a'.repeat(MAX_MESSAGE_CHARS + 1));
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `pincer run: the message is ${MAX_MESSAGE_CHARS + 1} characters; the limit is ${MAX_MESSAGE_CHARS}\n`,
    );
  });
});

describe('a reader that goes away', () => {
  it('pincer --help with its stdout closed exits 0 without a stack trace', async () => {
    const child = spawn(process.execPath, [builtCli, '--help'], {
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Closed before Node has even started: its first write meets EPIPE, as under `| head -1`.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
