/**
 * Tool calls typed at the terminal, through the built CLI: they run without a model, under the
 * default manifest's policy (reads allowed, writes ask), and report mistakes by line and column.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBuiltCli } from '../../support/cli-run.js';

let home = '';
let workspace = '';
let env: Record<string, string | undefined> = {};

beforeAll(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'pincer-cli-direct-'));
  workspace = path.join(home, 'workspace', 'pincer');
  await mkdir(workspace, { recursive: true });
  await writeFile(path.join(workspace, 'notes.md'), '# Notes\nbuy milk\n');
  // No model anywhere: a direct call must never need one.
  env = {
    ...process.env,
    PINCER_HOME: home,
    PINCER_MODEL: '/nonexistent.gguf',
    PINCER_KEYCHAIN: 'off',
  };
});
afterAll(() => rm(home, { recursive: true, force: true }));

describe('pincer run / chat with typed tool calls', () => {
  it('runs a read-only chain and prints the results', async () => {
    const result = await runBuiltCli(['run', '@fs/list{path="."} -> @fs/read{path="notes.md"}'], {
      env,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('notes.md');
    expect(result.stdout).toContain('# Notes\nbuy milk');
    expect(result.stderr).toContain('[tool fs/list]');
  });

  it('runs a parallel group of read-only calls', async () => {
    const result = await runBuiltCli(['run', '[@fs/list{path="."}, @fs/search{pattern="milk"}]'], {
      env,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/notes\.md[\s\S]*buy milk/);
  });

  it('a write asks first; with nobody to answer it is refused, exit 1, nothing written', async () => {
    const result = await runBuiltCli(['run', '@fs/write{path="x.txt"; content="no"}'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('requires approval');
    expect(result.stderr).toContain('"code":-32013');
    await expect(readFile(path.join(workspace, 'x.txt'))).rejects.toThrow();
  });

  it('approved on the prompt, the write happens', async () => {
    const result = await runBuiltCli(['run', '@fs/write{path="y.txt"; content="yes"}'], {
      env,
      input: 'y\n',
    });
    expect(result.code, result.stderr).toBe(0);
    expect(await readFile(path.join(workspace, 'y.txt'), 'utf8')).toBe('yes');
  });

  it('a malformed call is a usage error with line and column, and nothing runs', async () => {
    const result = await runBuiltCli(['run', '@fs/list{path="."}\n -> @fs/read{path=}'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/tool call, line 2, column 19: expected a value/);
    expect(result.stderr).not.toContain('[tool');
  });

  it('"@name, hello" is a message, not a call', async () => {
    const result = await runBuiltCli(['run', '@alice, hello'], { env });
    // It went to the model, which does not exist here.
    expect(result.code).toBe(1);
    expect(result.stderr).not.toContain('tool call, line');
  });

  it('in chat, a typed call runs and the session goes on', async () => {
    const result = await runBuiltCli(
      [
        'chat',
        '--protocol',
        'openai-compatible',
        '--endpoint',
        'http://127.0.0.1:9/v1',
        '--model',
        'm',
      ],
      { env, input: '@fs/read{path="notes.md"; limit=1}\n@fs/read{path=}\n/exit\n' },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('# Notes');
    expect(result.stdout).not.toContain('buy milk');
    expect(result.stderr).toContain('tool call, line 1, column 15');
  });
});
