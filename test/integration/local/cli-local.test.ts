import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyGguf } from '../../fixtures/tiny-gguf.js';

const run = promisify(execFile);
const repoRoot = path.resolve(import.meta.dirname, '../../..');
const cli = path.join(repoRoot, 'dist/cli.js');
let home = '';
let model = '';

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the BUILT cli (dist/cli.js) as a real child process. */
async function pincer(...args: string[]): Promise<CliRun> {
  try {
    const { stdout, stderr } = await run(process.execPath, [cli, ...args], {
      env: { ...process.env, PINCER_HOME: home, PINCER_MODEL: '' },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

beforeAll(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'pincer-cli-local-'));
  model = path.join(home, 'tiny.gguf');
  await writeTinyGguf(model, { tokenizer: 'bpe' });
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('pincer run / chat / models on the tiny model (built dist/cli.js)', () => {
  it('run --model-path streams a reply and exits 0', async () => {
    const result = await pincer(
      'run',
      '--model-path',
      model,
      '--threads',
      '2',
      '--max-tokens',
      '8',
      // Tool schemas would not fit the tiny model's context next to the prompt.
      '--tools',
      '',
      'hello',
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.length).toBeGreaterThan(1);
  });

  it('run on a broken file fails with a clear message', async () => {
    const result = await pincer('run', '--model-path', path.join(home, 'absent.gguf'), 'hi');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/--model-path points to .*absent\.gguf, which is not a file/);
  });

  it('chat with no model anywhere says exactly how to get one', async () => {
    const result = await pincer('chat');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('pincer models pull qwen2.5-7b-instruct');
    expect(result.stderr).toContain(path.join(home, 'models'));
  });

  it('chat answers each line, and Ctrl+C (SIGINT) stops a reply without ending the chat', async () => {
    const child = spawn(
      process.execPath,
      [
        cli,
        'chat',
        '--model-path',
        model,
        '--threads',
        '2',
        '--max-tokens',
        '100000',
        '--context-size',
        '512',
        '--tools',
        '',
      ],
      { env: { ...process.env, PINCER_HOME: home }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const outputGrows = new Promise<void>((resolve) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        // The reply is streaming once a few characters follow the prompt (they may be spaces).
        if (/> [\s\S]{3,}/.test(stdout)) resolve();
      });
    });
    child.stdin.write('tell me a very long story\n');
    await outputGrows;
    child.kill('SIGINT');
    const cancelled = new Promise<void>((resolve) => {
      const check = () => stdout.includes('[cancelled]') && resolve();
      child.stdout.on('data', check);
      check();
    });
    await cancelled;
    child.stdin.end('/exit\n');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toContain('Pincer chat · model');
    expect(code).toBe(0);
  });

  it('models list shows the catalog and models path prints the folder', async () => {
    const list = await pincer('models', 'list');
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/qwen2\.5-7b-instruct\s+chat/);
    // Where the default model would run: in GPU memory, split, or on the processor.
    expect(list.stdout).toMatch(
      /This computer: [\d.]+ GB RAM; (no supported GPU|GPU .+ free of [\d.]+ GB)\nqwen2\.5-7b-instruct (runs on the processor|fits in GPU memory|partly on the GPU)/,
    );
    const where = await pincer('models', 'path');
    expect(where.stdout.trim()).toBe(path.join(home, 'models'));
    const unknown = await pincer('models', 'pull', 'no-such-model');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No model named "no-such-model"');
  });
});
