import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  installationView,
  outermost,
  systemView,
  viewOf,
} from '../../../src/main/core/sandbox/system-view.js';
import { relativeGlob } from '../../../src/main/core/tools/builtins/path-pattern.js';

const inside = (parent: string, child: string) =>
  child === parent || child.startsWith(`${parent}/`);

let scratch = '';
beforeAll(async () => {
  // Not under /tmp: a link target there is the sandbox's own private /tmp, never bound.
  scratch = await mkdtemp(path.join('/var/tmp', 'pincer-view-unit-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('the system view', () => {
  it('shows /usr and the Node binary, never a credential store of /etc or a home', () => {
    const view = systemView('linux');
    const bound = view.filter((entry) => entry.link === undefined).map((entry) => entry.path);
    expect(bound).toContain('/usr');
    expect(
      bound.some((p) => inside(p, process.execPath) || inside(p, path.dirname(process.execPath))),
    ).toBe(true);
    for (const hidden of [
      '/etc',
      '/etc/shadow',
      '/etc/gshadow',
      '/etc/sudoers',
      '/etc/ssh',
      '/etc/ssl/private',
      '/etc/npmrc',
      '/etc/pip.conf',
      '/root',
      '/home',
      '/var',
      '/run',
      os.homedir(),
    ]) {
      expect(
        view.some((entry) => inside(entry.path, hidden)),
        hidden,
      ).toBe(false);
    }
  });

  it("recreates symlinks, shows their real targets except the sandbox's own /proc, drops what is missing", async () => {
    const target = path.join(scratch, 'real');
    await mkdir(path.join(target, 'inner'), { recursive: true });
    await symlink('real', path.join(scratch, 'alias'));
    await symlink('/proc/self/mounts', path.join(scratch, 'mtab'));
    await symlink('/tmp', path.join(scratch, 'tmp-link'));
    const view = viewOf([
      path.join(scratch, 'alias'),
      path.join(scratch, 'mtab'),
      path.join(scratch, 'tmp-link'),
      path.join(target, 'inner'),
      path.join(scratch, 'missing'),
    ]);
    expect(view).toEqual([
      { path: target },
      { path: path.join(scratch, 'alias'), link: 'real' },
      { path: path.join(scratch, 'mtab'), link: '/proc/self/mounts' },
      { path: path.join(scratch, 'tmp-link'), link: '/tmp' },
    ]);
  });

  it('keeps only the outermost of nested paths', () => {
    expect(outermost(['/a/b', '/a', '/c', '/a/b/c', '/c'])).toEqual(['/a', '/c']);
    // A shared prefix is not nesting; the root holds everything.
    expect(outermost(['/a', '/ab', '/a/b/'])).toEqual(['/a', '/ab']);
    expect(outermost(['/usr/lib', '/usr', '/usrx', '/'])).toEqual(['/']);
  });

  it('an installation: its folder, and node_modules and linked packages that live elsewhere', async () => {
    const app = path.join(scratch, 'app');
    const shared = path.join(scratch, 'shared-modules');
    const linked = path.join(scratch, 'linked-package');
    await mkdir(path.join(app, 'dist'), { recursive: true });
    await mkdir(path.join(shared, '@scope'), { recursive: true });
    await mkdir(linked);
    await writeFile(path.join(app, 'dist', 'worker.js'), '');
    await symlink(shared, path.join(app, 'node_modules'));
    await symlink(linked, path.join(shared, '@scope', 'pkg'));
    expect(installationView(path.join(app, 'dist', 'worker.js'))).toEqual([app, shared, linked]);
    // No node_modules anywhere above: the script's own folder.
    const lone = path.join(scratch, 'lone');
    await mkdir(lone);
    expect(installationView(path.join(lone, 'w.js'))).toEqual([lone]);
  });
});

describe('glob patterns are paths too', () => {
  it('accepts relative patterns', () => {
    for (const glob of [
      '**/*.ts',
      '*.md',
      'src/**',
      'a..b/*.txt',
      '{src,test}/**/*.ts',
      '.github/*',
    ])
      expect(relativeGlob(glob), glob).toBe(glob);
  });

  it('refuses absolute starts and .. segments, in braces and extglobs too', () => {
    for (const glob of [
      '/etc/hostname',
      '\\\\server\\share',
      '~/.npmrc',
      '$HOME/.npmrc',
      'C:/x',
      ' /etc/x',
    ])
      expect(() => relativeGlob(glob), glob).toThrow(/must be relative/);
    for (const glob of [
      '..',
      '../x',
      '**/../../x',
      'a/..',
      '{..,x}/y',
      '@(..)/y',
      'a\\..\\b',
      'x/{a,..}/y',
    ])
      expect(() => relativeGlob(glob), glob).toThrow(/cannot go up/);
    expect(() => relativeGlob(42)).toThrow(/must be a string/);
    expect(() => relativeGlob('a\u0000b')).toThrow(/null byte/);
  });
});
