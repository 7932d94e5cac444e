/** The host-side file guard on a real filesystem: links, hard links, FIFOs and `..` never get through. */
import { execFileSync } from 'node:child_process';
import { link, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appendInside,
  createInside,
  readInside,
  readTextInside,
  readTextsInside,
} from '../../../src/main/core/workspace-fs/index.js';

let dir = '';
let ws = '';
let secret = '';
let outside = '';

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-wsfs-'));
  ws = path.join(dir, 'ws');
  outside = path.join(dir, 'outside');
  secret = path.join(outside, 'id_rsa');
  await mkdir(path.join(ws, 'notes'), { recursive: true });
  await mkdir(outside);
  await writeFile(secret, 'PRIVATE KEY');
  await writeFile(path.join(ws, 'notes', 'plain.md'), 'plain text');
  await symlink(secret, path.join(ws, 'link.md'));
  await symlink(path.join(dir, 'nowhere'), path.join(ws, 'dangling.md'));
  await link(secret, path.join(ws, 'hard.md'));
  await symlink(outside, path.join(ws, 'out-dir'));
  await symlink(path.join(ws, 'notes'), path.join(ws, 'in-dir'));
  await writeFile(path.join(ws, 'big.md'), 'x'.repeat(2048));
  execFileSync('mkfifo', [path.join(ws, 'fifo.md')]);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: { code?: string; message: string }) => ({ code: error.code, message: error.message }),
  );

describe('readInside', () => {
  it('reads a plain file, also through a link that stays inside the root', async () => {
    expect((await readInside(ws, 'notes/plain.md')).bytes.toString()).toBe('plain text');
    expect((await readInside(ws, 'in-dir/plain.md')).bytes.toString()).toBe('plain text');
  });

  it('refuses a symlink out, a dangling one, a hard link and a symlinked folder out', async () => {
    expect(await refusal(readInside(ws, 'link.md'))).toMatchObject({
      code: 'link',
      message: expect.stringMatching(/"link\.md" is a symbolic link; refused/),
    });
    expect(await refusal(readInside(ws, 'dangling.md'))).toMatchObject({ code: 'link' });
    expect(await refusal(readInside(ws, 'hard.md'))).toMatchObject({
      code: 'hard_link',
      message: expect.stringMatching(/has 2 hard links; refused/),
    });
    expect(await refusal(readInside(ws, 'out-dir/id_rsa'))).toMatchObject({
      code: 'link',
      message: expect.stringMatching(/leads outside the workspace through a link/),
    });
  });

  it('refuses `..` and absolute paths out of the root, FIFOs (without waiting) and oversize files', async () => {
    expect(await refusal(readInside(ws, '../outside/id_rsa'))).toMatchObject({ code: 'outside' });
    expect(await refusal(readInside(ws, secret))).toMatchObject({ code: 'outside' });
    expect(await refusal(readInside(ws, 'fifo.md'))).toMatchObject({ code: 'not_file' });
    expect(await refusal(readInside(ws, 'notes'))).toMatchObject({ code: 'not_file' });
    expect(await refusal(readInside(ws, 'big.md', { maxBytes: 1024 }))).toMatchObject({
      code: 'too_large',
    });
  });

  it('readTextInside tells absent from refused', async () => {
    expect(await readTextInside(ws, 'missing.md')).toBeUndefined();
    expect(await readTextInside(ws, 'notes/plain.md')).toEqual({ text: 'plain text' });
    expect(await readTextInside(ws, 'link.md')).toEqual({
      refused: expect.stringContaining('symbolic link'),
    });
  });

  it('readTextsInside reads several under one root, each checked, in the order asked', async () => {
    const names = ['link.md', 'missing.md', 'notes/plain.md', '../outside/id_rsa', 'hard.md'];
    expect(await readTextsInside(ws, names)).toEqual([
      { refused: expect.stringContaining('symbolic link') },
      undefined,
      { text: 'plain text' },
      { refused: expect.stringContaining('outside') },
      { refused: expect.stringContaining('hard links') },
    ]);
    expect(await readTextsInside(ws, ['big.md'], 100)).toEqual([
      { refused: expect.stringContaining('limit is 100') },
    ]);
    expect(await readTextsInside(path.join(dir, 'no-such-root'), ['a.md', 'b.md'])).toEqual([
      undefined,
      undefined,
    ]);
  });
});

describe('appendInside', () => {
  it('creates the file and its folders with a head, then appends', async () => {
    const first = await appendInside(ws, 'threads/daily/d.md', 'one\n', { head: '# d\n' });
    expect(first.created).toBe(true);
    const second = await appendInside(ws, 'threads/daily/d.md', 'two\n', { head: '# d\n' });
    expect(second.created).toBe(false);
    expect(await readFile(path.join(ws, 'threads/daily/d.md'), 'utf8')).toBe('# d\none\ntwo\n');
  });

  it('never writes through a symlink, a hard link or a symlinked folder; the target is unchanged', async () => {
    expect(await refusal(appendInside(ws, 'link.md', 'curl x | sh\n'))).toMatchObject({
      code: 'link',
    });
    expect(await refusal(appendInside(ws, 'dangling.md', 'x'))).toMatchObject({ code: 'link' });
    expect(await refusal(appendInside(ws, 'hard.md', 'x'))).toMatchObject({ code: 'hard_link' });
    expect(await refusal(appendInside(ws, 'out-dir/new.md', 'x'))).toMatchObject({
      code: 'link',
    });
    expect(await refusal(appendInside(ws, 'out-dir/sub/new.md', 'x'))).toMatchObject({
      code: 'link',
    });
    expect(await readFile(secret, 'utf8')).toBe('PRIVATE KEY');
    const made = execFileSync('find', [outside], { encoding: 'utf8' }).trim().split('\n');
    expect(made.sort()).toEqual([outside, secret]);
  });
});

describe('createInside', () => {
  it('creates a new file and its folders; an existing name, a link or a way out is refused', async () => {
    const made = await createInside(ws, 'inbox/tg/1/a.bin', Buffer.from([0, 1, 2]));
    expect(await readFile(made.file)).toEqual(Buffer.from([0, 1, 2]));
    expect(await refusal(createInside(ws, 'inbox/tg/1/a.bin', Buffer.from('x')))).toMatchObject({
      code: 'exists',
    });
    expect(await readFile(made.file)).toEqual(Buffer.from([0, 1, 2]));
    expect(await refusal(createInside(ws, 'link.md', Buffer.from('x')))).toMatchObject({
      code: 'exists',
    });
    expect(await refusal(createInside(ws, 'dangling.md', Buffer.from('x')))).toMatchObject({
      code: 'exists',
    });
    expect(await refusal(createInside(ws, 'out-dir/new.bin', Buffer.from('x')))).toMatchObject({
      code: 'link',
    });
    expect(await refusal(createInside(ws, '../escape.bin', Buffer.from('x')))).toMatchObject({
      code: 'outside',
    });
    expect(await readFile(secret, 'utf8')).toBe('PRIVATE KEY');
  });
});
