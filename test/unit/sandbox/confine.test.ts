import { link, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FilesystemScope } from '../../../src/main/core/tools/types.js';
import { confine, refuseHardLinks } from '../../../src/main/core/workspace-fs/index.js';

let root = '';
let data = '';
let workspace = '';
let docs = '';
let scope: FilesystemScope;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'pincer-confine-'));
  data = path.join(root, 'data');
  workspace = path.join(data, 'workspace', 'me');
  docs = path.join(root, 'docs');
  await mkdir(workspace, { recursive: true });
  await mkdir(path.join(docs, 'private'), { recursive: true });
  await writeFile(path.join(data, 'pincer.db'), 'db');
  await writeFile(path.join(docs, 'a.md'), 'a');
  await writeFile(path.join(root, 'outside.txt'), 'o');
  await symlink(path.join(root, 'outside.txt'), path.join(workspace, 'link'));
  await symlink(path.join(root, 'missing.txt'), path.join(workspace, 'dangling'));
  await symlink(docs, path.join(workspace, 'docs-link'));
  await link(path.join(root, 'outside.txt'), path.join(workspace, 'hard'));
  scope = {
    mounts: [{ path: docs, mode: 'ro' }],
    denied: [data, path.join(docs, 'private')],
  };
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const refused = (promise: Promise<unknown>, why: RegExp) => expect(promise).rejects.toThrow(why);

describe('path resolution', () => {
  it('resolves inside the workspace, even inside a denied folder around it (the data dir)', async () => {
    expect(await confine(workspace, 'notes/new.md', 'path', { scope })).toBe(
      path.join(workspace, 'notes/new.md'),
    );
  });

  it('refuses .., absolute paths outside, and links leading out (dangling ones too)', async () => {
    await refused(
      confine(workspace, '../../pincer.db', 'path', { scope }),
      /outside the workspace/,
    );
    await refused(confine(workspace, '/etc/passwd', 'path', { scope }), /outside the workspace/);
    await refused(confine(workspace, 'link', 'path', { scope }), /through a link/);
    await refused(confine(workspace, 'dangling', 'path', { scope }), /through a link/);
  });

  it('reads granted mounts, refuses writes to ro ones and anything under a denied path', async () => {
    expect(await confine(workspace, path.join(docs, 'a.md'), 'path', { scope })).toBe(
      path.join(docs, 'a.md'),
    );
    await refused(
      confine(workspace, path.join(docs, 'a.md'), 'path', { scope, access: 'write' }),
      /read-only/,
    );
    await refused(
      confine(workspace, path.join(docs, 'private', 'x'), 'path', { scope }),
      /denied location/,
    );
    // A link into a granted mount resolves to the mount and obeys its mode.
    await refused(
      confine(workspace, 'docs-link/a.md', 'path', { scope, access: 'write' }),
      /read-only/,
    );
  });

  it('a read-only scope makes the workspace itself read-only', async () => {
    await refused(
      confine(workspace, 'x.md', 'path', { scope: { ...scope, readOnly: true }, access: 'write' }),
      /read-only/,
    );
  });

  it('filesystem mode deny refuses every path', async () => {
    await refused(
      confine(workspace, 'x.md', 'path', { scope: { ...scope, none: true } }),
      /no file access/,
    );
  });

  it('refuses files with more than one hard link', async () => {
    await expect(refuseHardLinks(path.join(workspace, 'hard'), 'hard')).rejects.toThrow(
      /hard links/,
    );
    await expect(refuseHardLinks(path.join(root, 'outside.txt'), 'x')).rejects.toThrow(
      /hard links/,
    );
    await expect(refuseHardLinks(path.join(docs, 'a.md'), 'a.md')).resolves.toBeUndefined();
  });
});
