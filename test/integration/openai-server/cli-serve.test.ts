/** `pincer serve --openai` as a real child process of the built CLI (npm run build first). */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyGguf } from '../../fixtures/tiny-gguf.js';
import { builtCli, runBuiltCli } from '../../support/cli-run.js';

let home = '';
let model = '';
const KEY = 'test-key-for-serve';

beforeAll(async () => {
  if (!existsSync(builtCli)) throw new Error(`${builtCli} is missing: run npm run build first`);
  home = await mkdtemp(path.join(os.tmpdir(), 'pincer-serve-'));
  model = path.join(home, 'tiny.gguf');
  await writeTinyGguf(model, { tokenizer: 'bpe' });
  // An installed model in the data dir: listed beside the one served, loaded when named.
  await mkdir(path.join(home, 'models'), { recursive: true });
  await writeTinyGguf(path.join(home, 'models', 'tiny-installed.gguf'), {
    tokenizer: 'bpe',
    seed: 3,
  });
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const env = () => ({ ...process.env, PINCER_HOME: home, PINCER_MODEL: '', SERVE_KEY: KEY });

/** Starts the server and resolves with its base URL once it printed it. */
function serve(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const url = /endpoint: (http:\S+)/.exec(out)?.[1];
      if (url) resolve(url);
    });
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      err += d;
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
  });
}

describe('pincer serve', () => {
  it('--openai serves the model and the installed ones on demand, with the key from --api-key-env, and stops on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [
        builtCli,
        'serve',
        '--openai',
        '--model-path',
        model,
        '--port',
        '0',
        '--threads',
        '2',
        '--context-size',
        '512',
        '--api-key-env',
        'SERVE_KEY',
      ],
      { env: env(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      const baseURL = await serve(child);
      expect(baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      const client = new OpenAI({ baseURL, apiKey: KEY, maxRetries: 0 });
      const models = [];
      for await (const m of client.models.list()) models.push(m.id);
      expect(models).toEqual(['tiny', 'tiny-installed']);
      const installed = await client.chat.completions.create({
        model: 'tiny-installed',
        messages: [{ role: 'user', content: 'Hi' }],
        max_tokens: 2,
      });
      expect(installed.model).toBe('tiny-installed');
      expect(installed.usage?.completion_tokens).toBe(2);
      const reply = await client.chat.completions.create({
        model: 'tiny',
        messages: [{ role: 'user', content: 'prompt-text-not-logged' }],
        max_tokens: 4,
      });
      expect(reply.usage?.completion_tokens).toBe(4);
      const stranger = new OpenAI({ baseURL, apiKey: 'wrong', maxRetries: 0 });
      await expect(stranger.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    // The request log is metadata only: the path and counts, never the prompt or the key.
    expect(stderr).toMatch(/POST \/v1\/chat\/completions 200 ok model=tiny/);
    expect(stderr).not.toContain('prompt-text-not-logged');
    expect(stderr).not.toContain(KEY);
  });

  it('refuses an unset key variable, and plain serve without a transport is a usage error', async () => {
    const unset = await runBuiltCli(
      ['serve', '--openai', '--model-path', model, '--api-key-env', 'NOT_SET_ANYWHERE'],
      { env: env() },
    );
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain('NOT_SET_ANYWHERE');
    const plain = await runBuiltCli(['serve'], { env: env() });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('choose a transport');
  });
});
