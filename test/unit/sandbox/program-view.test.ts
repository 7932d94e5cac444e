/**
 * The view a server's command line computes: packages and their dependencies as Node finds
 * them, a Python environment, the folders it names; never the home or a folder above it.
 */
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { programView } from '../../../src/main/core/sandbox/program-view.js';

let root = '';
let home = '';
beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'pincer-program-view-')));
  home = path.join(root, 'home');
  await mkdir(home, { recursive: true });
});
afterEach(() => rm(root, { recursive: true, force: true }));

async function file(at: string, text = ''): Promise<string> {
  await mkdir(path.dirname(at), { recursive: true });
  await writeFile(at, text);
  return at;
}

describe('programView', () => {
  it('a script in the home with a package.json in the home: the script alone, not the home', async () => {
    await file(path.join(home, 'package.json'), '{}');
    const script = await file(path.join(home, 'server.js'));
    const view = programView(['node', script], { home });
    expect(view.readOnly).toEqual([script]);
    expect(view.granted).toEqual([]);
  });

  it('a package: its folder and its dependencies, found up the tree and through a linked node_modules', async () => {
    const shared = path.join(root, 'shared', 'node_modules');
    await file(path.join(shared, 'dep', 'package.json'), '{"dependencies":{"leaf":"1"}}');
    await file(path.join(shared, 'leaf', 'package.json'), '{}');
    const pkg = path.join(root, 'tools', 'server');
    await file(path.join(pkg, 'package.json'), '{"dependencies":{"dep":"1","missing":"1"}}');
    const main = await file(path.join(pkg, 'dist', 'index.js'));
    await symlink(shared, path.join(pkg, 'node_modules'));
    const view = programView([main], { home });
    expect(view.readOnly.sort()).toEqual(
      [pkg, path.join(shared, 'dep'), path.join(shared, 'leaf')].sort(),
    );
    expect(view.links).toEqual([{ path: path.join(pkg, 'node_modules'), link: shared }]);
  });

  it('a folder argument is granted exactly; ~ expands; the home, / and above are not granted', async () => {
    const docs = path.join(home, 'Documents');
    await mkdir(docs);
    const view = programView(['server', '~/Documents', '~', '/', home, path.dirname(home)], {
      home,
    });
    expect(view.argv[1]).toBe(docs);
    expect(view.argv[2]).toBe(home);
    expect(view.granted).toEqual([docs]);
  });

  it('a Python environment: the environment and the installation its pyvenv.cfg names', async () => {
    const base = path.join(root, 'pythons', 'cpython-3.12');
    const interpreter = await file(path.join(base, 'bin', 'python3.12'));
    const venv = path.join(root, 'srv', 'venv');
    await file(path.join(venv, 'pyvenv.cfg'), `home = ${path.join(base, 'bin')}\n`);
    await mkdir(path.join(venv, 'bin'));
    await symlink(interpreter, path.join(venv, 'bin', 'python'));
    const project = path.join(root, 'srv', 'weather');
    await file(path.join(project, 'pyproject.toml'));
    const script = await file(path.join(project, 'server.py'));
    const view = programView([path.join(venv, 'bin', 'python'), script], { home });
    expect(view.readOnly.sort()).toEqual([venv, base, interpreter, project].sort());
  });
});
