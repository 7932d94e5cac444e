/**
 * The view a server's command line computes: packages and their dependencies as Node finds
 * them, a Python environment, the folders it names; never the home or a folder above it.
 */
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BackendInfo } from '../../../src/main/core/sandbox/backend.js';
import { Launcher } from '../../../src/main/core/sandbox/launcher.js';
import { programView } from '../../../src/main/core/sandbox/program-view.js';
import { DEFAULT_LIMITS, sandboxSettings } from '../../../src/main/core/sandbox/settings.js';

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

describe('the launcher applies a view', () => {
  const bwrap: BackendInfo = {
    kind: 'bwrap',
    reason: 'test',
    warnings: [],
    asRoot: false,
    limiter: 'prlimit',
  };

  it('grants follow the filesystem mode; one holding system folders is read-only', async () => {
    const workspace = path.join(root, 'ws');
    const docs = path.join(root, 'docs');
    await mkdir(workspace);
    await mkdir(docs);
    const scoped = new Launcher(bwrap, sandboxSettings({ workspace, home }));
    const plan = scoped.plan(workspace, false, { granted: [docs, '/etc', '/usr/share'] });
    expect(plan.mounts).toContainEqual({ path: docs, mode: 'rw' });
    expect(plan.mounts).toContainEqual({ path: '/etc', mode: 'ro' });
    // Already in the system view, read-only: not bound again.
    expect(plan.mounts.some((m) => m.path === '/usr/share')).toBe(false);
    const readOnly = new Launcher(
      bwrap,
      sandboxSettings({ workspace, home, filesystem: { mode: 'read-only' } }),
    );
    expect(readOnly.plan(workspace, false, { granted: [docs] }).mounts).toContainEqual({
      path: docs,
      mode: 'ro',
    });
    const denied = new Launcher(
      bwrap,
      sandboxSettings({ workspace, home, filesystem: { mode: 'deny' } }),
    );
    expect(denied.plan(workspace, false, { granted: [docs] }).mounts).toEqual([]);
  });

  it('each launch gets a fresh HOME in the private /tmp, made by bwrap', () => {
    const launcher = new Launcher(bwrap, sandboxSettings({ workspace: root, home }));
    const launch = launcher.launch({
      argv: ['true'],
      cwd: root,
      network: false,
      limits: DEFAULT_LIMITS,
    });
    expect(launch.home).toBe('/tmp/.pincer-home');
    const at = launch.args.findIndex(
      (arg, i) => arg === '--dir' && launch.args[i + 1] === launch.home,
    );
    expect(at).toBeGreaterThan(launch.args.indexOf('/tmp'));
  });
});
