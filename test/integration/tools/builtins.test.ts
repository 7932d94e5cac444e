/**
 * The built-in tools for real: temp workspaces, real files and symlinks, real child processes,
 * a real HTTP server on 127.0.0.1; through the registry's host, as the runtime calls them.
 */
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunId, StepId } from '../../../src/main/core/terms.js';
import { BUILTIN_TOOLS } from '../../../src/main/core/tools/builtins/index.js';
import { isPrivateAddress } from '../../../src/main/core/tools/builtins/net.js';
import type { ToolHost } from '../../../src/main/core/tools/host.js';
import { ToolRegistry } from '../../../src/main/core/tools/registry.js';

let workspace = '';
let outside = '';
let host: ToolHost;
let registry: ToolRegistry;

beforeAll(async () => {
  workspace = await mkdtemp(path.join(os.tmpdir(), 'pincer-ws-'));
  outside = await mkdtemp(path.join(os.tmpdir(), 'pincer-outside-'));
  await writeFile(path.join(outside, 'secret.txt'), 'do not read');
  await mkdir(path.join(workspace, 'src/deep'), { recursive: true });
  await writeFile(path.join(workspace, 'src/a.ts'), 'const a = 1;\nconst b = 2;\n// TODO: c\n');
  await writeFile(path.join(workspace, 'src/deep/b.ts'), 'export const todo = "TODO: d";\n');
  await writeFile(
    path.join(workspace, 'notes.md'),
    Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n'),
  );
  await symlink(outside, path.join(workspace, 'escape'));
  registry = new ToolRegistry();
  for (const tool of BUILTIN_TOOLS) registry.register(tool);
  host = registry.host({ allow: ['**'], workspace, allowPrivateNetwork: false });
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

const context = (signal = new AbortController().signal) => ({
  signal,
  runId: 'run_t' as RunId,
  stepId: 'stp_t' as StepId,
});
const call = (name: string, input: Record<string, unknown>, signal?: AbortSignal) =>
  host.execute({ id: 'c', name, input }, context(signal));

describe('fs tools', () => {
  it('reads with offset and limit, and says which lines it showed', async () => {
    expect(await call('fs/read', { path: 'notes.md', offset: 10, limit: 3 })).toEqual({
      content: 'line 10\nline 11\nline 12\n[lines 10-12 of 50]',
      isError: undefined,
    });
    expect((await call('fs/read', { path: 'src/a.ts' })).content).toBe(
      'const a = 1;\nconst b = 2;\n// TODO: c\n',
    );
  });

  it('refuses paths outside the workspace, by .. or by symlink', async () => {
    expect(await call('fs/read', { path: '../x' })).toMatchObject({
      isError: true,
      content: 'path "../x" is outside the workspace',
    });
    expect(await call('fs/read', { path: path.join(outside, 'secret.txt') })).toMatchObject({
      isError: true,
    });
    expect(await call('fs/read', { path: 'escape/secret.txt' })).toMatchObject({
      isError: true,
      content: 'path "escape/secret.txt" leads outside the workspace through a link',
    });
    expect(await call('fs/write', { path: 'escape/new.txt', content: 'x' })).toMatchObject({
      isError: true,
    });
    await expect(readFile(path.join(outside, 'new.txt'))).rejects.toThrow();
  });

  it('writes (creating folders), edits with a uniqueness check, lists and searches', async () => {
    expect(
      (await call('fs/write', { path: 'out/n.txt', content: 'alpha beta alpha' })).content,
    ).toBe('wrote 16 bytes to out/n.txt');
    expect(
      await call('fs/edit', { path: 'out/n.txt', old_text: 'alpha', new_text: 'gamma' }),
    ).toMatchObject({ isError: true, content: expect.stringContaining('occurs 2 times') });
    expect(
      await call('fs/edit', { path: 'out/n.txt', old_text: 'zeta', new_text: 'x' }),
    ).toMatchObject({ isError: true, content: 'old_text was not found in the file' });
    expect(
      (await call('fs/edit', { path: 'out/n.txt', old_text: 'beta', new_text: 'delta' })).content,
    ).toBe('replaced 1 occurrence');
    expect(
      (
        await call('fs/edit', {
          path: 'out/n.txt',
          old_text: 'alpha',
          new_text: 'x',
          replace_all: true,
        })
      ).content,
    ).toBe('replaced 2 occurrences');
    expect(await readFile(path.join(workspace, 'out/n.txt'), 'utf8')).toBe('x delta x');
    expect((await call('fs/list', { path: 'src' })).content).toBe('a.ts\ndeep/');
    expect((await call('fs/list', { path: 'src', recursive: true })).content).toBe(
      'a.ts\ndeep/\ndeep/b.ts',
    );
    expect((await call('fs/search', { pattern: 'TODO', path: 'src' })).content).toBe(
      'a.ts:3: // TODO: c\ndeep/b.ts:1: export const todo = "TODO: d";',
    );
    expect((await call('fs/search', { pattern: '(' })).content).toMatch(
      /not a valid regular expression/,
    );
  });
});

describe('argument guard', () => {
  it('returns a structured error naming the schema fragment, and never runs the tool', async () => {
    const result = await call('fs/read', { file: 'a', limit: 0 });
    expect(result.isError).toBe(true);
    const parsed = JSON.parse(result.content);
    expect(parsed).toMatchObject({ error: 'invalid_arguments', tool: 'fs/read' });
    expect(parsed.violations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          keyword: 'required',
          schemaPath: '#/required',
          message: "arguments must have required property 'path' (path)",
        }),
        expect.objectContaining({
          keyword: 'additionalProperties',
          message: expect.stringContaining('(file)'),
        }),
        expect.objectContaining({
          keyword: 'minimum',
          path: '/limit',
          schemaPath: '#/properties/limit/minimum',
        }),
      ]),
    );
  });

  it('refuses a tool that is not registered or not allowed', async () => {
    const narrow = registry.host({ allow: ['fs/read'], workspace });
    expect(narrow.definitions().map((d) => d.name)).toEqual(['fs/read']);
    const result = await narrow.execute(
      { id: 'c', name: 'sys/exec', input: { command: 'true' } },
      context(),
    );
    expect(JSON.parse(result.content)).toEqual({
      error: 'unknown_tool',
      tool: 'sys/exec',
      available: ['fs/read'],
    });
  });
});

describe('sys/exec', () => {
  it('runs a program without a shell, in the workspace, with only granted environment', async () => {
    process.env.PINCER_TEST_SECRET = 'leak-me-not';
    const result = await call('sys/exec', {
      command: 'sh',
      args: ['-c', 'pwd; echo "[$PINCER_TEST_SECRET]"; echo err >&2; exit 3'],
    });
    delete process.env.PINCER_TEST_SECRET;
    expect(result.isError).toBe(true);
    expect(result.content).toContain(
      `${await import('node:fs/promises').then((f) => f.realpath(workspace))}\n[]\nerr\n[exit code 3]`,
    );
  });

  it('passes arguments literally unless asked for a shell', async () => {
    expect(
      (await call('sys/exec', { command: 'echo', args: ['$HOME', '; rm -rf /'] })).content,
    ).toBe('$HOME ; rm -rf /\n[exit code 0]');
    expect((await call('sys/exec', { command: 'echo a | tr a b', shell: true })).content).toBe(
      'b\n[exit code 0]',
    );
    expect(await call('sys/exec', { command: 'no-such-program-xyz' })).toMatchObject({
      isError: true,
      content: 'command not found: no-such-program-xyz',
    });
  });

  it('kills the whole process group on timeout and on cancel', async () => {
    const started = Date.now();
    const result = await call('sys/exec', {
      command: 'sh',
      args: ['-c', 'sleep 30 & sleep 30; echo never'],
      timeout_ms: 300,
    });
    expect(result).toMatchObject({ isError: true, content: '[killed: timed out after 300 ms]' });
    expect(Date.now() - started).toBeLessThan(10_000);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    expect(
      await call('sys/exec', { command: 'sleep', args: ['30'] }, controller.signal),
    ).toMatchObject({ content: '[killed: cancelled]' });
  });
});

describe('net/fetch', () => {
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/big') return res.end('x'.repeat(5000));
      if (req.url === '/hop')
        return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end();
      res.writeHead(200, { 'content-type': 'text/plain' }).end('hello from loopback');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('refuses loopback, private and metadata addresses unless private networks are allowed', async () => {
    expect(await call('net/fetch', { url: `${base}/` })).toMatchObject({
      isError: true,
      content: '127.0.0.1 resolves to an internal address (127.0.0.1); refused',
    });
    expect(await call('net/fetch', { url: 'http://localhost:1/' })).toMatchObject({
      isError: true,
      content: expect.stringContaining('internal address'),
    });
    expect(await call('net/fetch', { url: 'file:///etc/passwd' })).toMatchObject({ isError: true });
    for (const ip of [
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '100.64.0.1',
    ]) {
      expect(isPrivateAddress(ip), ip).toBe(true);
    }
    expect(isPrivateAddress('93.184.216.34')).toBe(false);
  });

  it('fetches with a size cap, and checks every redirect hop', async () => {
    const open = registry.host({ allow: ['**'], workspace, allowPrivateNetwork: true });
    const get = (input: Record<string, unknown>) =>
      open.execute({ id: 'c', name: 'net/fetch', input }, context());
    expect((await get({ url: `${base}/` })).content).toBe(
      'HTTP 200 text/plain\n\nhello from loopback',
    );
    expect((await get({ url: `${base}/big`, max_bytes: 100 })).content).toBe(
      `HTTP 200\n\n${'x'.repeat(100)}\n[cut at 100 bytes]`,
    );
    const guarded = registry.host({ allow: ['**'], workspace });
    // Even when the first host were allowed, the redirect to the metadata service is refused.
    const result = await guarded.execute(
      { id: 'c', name: 'net/fetch', input: { url: `${base}/hop` } },
      context(),
    );
    expect(result.isError).toBe(true);
  });
});
