/**
 * What an MCP stdio server sees of its own files in the sandbox: its package folder, and the
 * folder its node_modules links to only when that is a node_modules folder; a planted link to
 * anything else (the home folder, a key folder) is not followed.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { programFiles } from '../../../src/main/core/mcp/tools.js';

let root = '';
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'pincer-program-files-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

async function serverPackage(name: string): Promise<string> {
  const dir = path.join(root, name);
  await mkdir(path.join(dir, 'bin'), { recursive: true });
  await writeFile(path.join(dir, 'package.json'), '{}');
  await writeFile(path.join(dir, 'bin', 'server.mjs'), '');
  return dir;
}

describe('programFiles', () => {
  it('shows the package folder around the program', async () => {
    const dir = await serverPackage('plain');
    expect(programFiles([path.join(dir, 'bin', 'server.mjs')])).toEqual([dir]);
  });

  it('follows a node_modules link to another node_modules folder', async () => {
    const dir = await serverPackage('linked');
    const shared = path.join(root, 'checkout', 'node_modules');
    await mkdir(shared, { recursive: true });
    await symlink(shared, path.join(dir, 'node_modules'));
    expect(programFiles([path.join(dir, 'bin', 'server.mjs')])).toEqual([dir, shared]);
  });

  it('does not follow a node_modules link planted to another folder', async () => {
    const dir = await serverPackage('planted');
    const secrets = path.join(root, 'home', '.ssh');
    await mkdir(secrets, { recursive: true });
    await symlink(secrets, path.join(dir, 'node_modules'));
    expect(programFiles([path.join(dir, 'bin', 'server.mjs')])).toEqual([dir]);
  });
});
