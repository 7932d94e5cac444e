import { describe, expect, it } from 'vitest';
import { bwrapArgs, type ConfinementPlan } from '../../../src/main/core/sandbox/bwrap.js';
import { prlimitArgs, ulimitScript } from '../../../src/main/core/sandbox/limits.js';
import { seatbeltProfile } from '../../../src/main/core/sandbox/seatbelt.js';
import { DEFAULT_LIMITS } from '../../../src/main/core/sandbox/settings.js';

const plan: ConfinementPlan = {
  system: [{ path: '/usr' }, { path: '/etc/passwd' }, { path: '/bin', link: 'usr/bin' }],
  workspace: '/data/workspace/pincer',
  workspaceMode: 'rw',
  mounts: [
    { path: '/srv/docs', mode: 'ro' },
    { path: '/srv/out', mode: 'rw' },
  ],
  denied: [
    { path: '/data', kind: 'dir' },
    { path: '/home/u/.ssh', kind: 'dir' },
    { path: '/etc/shadow', kind: 'file' },
    { path: '/srv/docs/private', kind: 'dir' },
  ],
  network: false,
  cwd: '/data/workspace/pincer',
  asRoot: false,
};

const indexOfPair = (args: string[], flag: string, value: string) =>
  args.findIndex((arg, i) => arg === flag && args[i + 1] === value);

describe('bwrap arguments', () => {
  it('an allowlist view: the system read-only on an empty root, private /tmp, new namespaces', () => {
    const args = bwrapArgs(plan);
    expect(indexOfPair(args, '--ro-bind', '/')).toBe(-1);
    expect(indexOfPair(args, '--bind', '/')).toBe(-1);
    expect(indexOfPair(args, '--ro-bind', '/usr')).toBe(0);
    expect(indexOfPair(args, '--ro-bind', '/etc/passwd')).toBeGreaterThan(0);
    expect(args[indexOfPair(args, '--symlink', 'usr/bin') + 2]).toBe('/bin');
    expect(indexOfPair(args, '--tmpfs', '/tmp')).toBeGreaterThan(0);
    for (const flag of ['--unshare-pid', '--unshare-net', '--die-with-parent', '--new-session'])
      expect(args).toContain(flag);
    expect(args).toContain('--unshare-user');
    expect(args).not.toContain('--cap-drop');
    expect(args.slice(-4)).toEqual(['--remount-ro', '/', '--chdir', '/data/workspace/pincer']);
  });

  it('keeps the network only when granted; root drops every capability', () => {
    const args = bwrapArgs({ ...plan, network: true, asRoot: true });
    expect(args).not.toContain('--unshare-net');
    expect(indexOfPair(args, '--cap-drop', 'ALL')).toBeGreaterThan(0);
    expect(args).not.toContain('--unshare-user');
  });

  it('denied paths out of view need no mask: the home and the data dir are simply not there', () => {
    const args = bwrapArgs(plan);
    expect(args).not.toContain('/data');
    expect(args).not.toContain('/home/u/.ssh');
    expect(args).not.toContain('/etc/shadow');
    expect(indexOfPair(args, '--bind', '/data/workspace/pincer')).toBeGreaterThan(0);
  });

  it('binds outer paths first: the private /tmp before an installation or workspace in it', () => {
    const args = bwrapArgs({
      ...plan,
      workspace: '/tmp/ci/checkout/ws',
      mounts: [{ path: '/tmp/ci/checkout', mode: 'ro' }],
    });
    const tmp = indexOfPair(args, '--tmpfs', '/tmp');
    const installation = indexOfPair(args, '--ro-bind', '/tmp/ci/checkout');
    expect(installation).toBeGreaterThan(tmp);
    expect(indexOfPair(args, '--bind', '/tmp/ci/checkout/ws')).toBeGreaterThan(installation);
  });

  it('a granted home: its denied folder masked after it, the workspace bound back inside, then read-only', () => {
    const args = bwrapArgs({
      ...plan,
      mounts: [{ path: '/home/u', mode: 'ro' }],
      denied: [
        { path: '/home/u/.config', kind: 'dir' },
        { path: '/home/u/.config/Pincer', kind: 'dir' },
        { path: '/home/u/.config/Pincer/secret.json', kind: 'file' },
        { path: '/home/u/.npmrc', kind: 'file' },
      ],
      workspace: '/home/u/.config/Pincer/workspace/me',
    });
    const home = indexOfPair(args, '--ro-bind', '/home/u');
    const mask = indexOfPair(args, '--tmpfs', '/home/u/.config');
    const bind = indexOfPair(args, '--bind', '/home/u/.config/Pincer/workspace/me');
    expect(home).toBeGreaterThanOrEqual(0);
    expect(mask).toBeGreaterThan(home);
    expect(bind).toBeGreaterThan(mask);
    expect(indexOfPair(args, '--remount-ro', '/home/u/.config')).toBeGreaterThan(bind);
    // Only the outermost of nested denied folders is masked.
    expect(args).not.toContain('/home/u/.config/Pincer');
    expect(args).not.toContain('/home/u/.config/Pincer/secret.json');
    expect(args[indexOfPair(args, '--ro-bind', '/dev/null') + 2]).toBe('/home/u/.npmrc');
  });

  it('a denial always wins: a grant equal to or inside a denied path is not bound', () => {
    const equal = bwrapArgs({ ...plan, denied: [{ path: '/srv/docs', kind: 'dir' }] });
    expect(indexOfPair(equal, '--ro-bind', '/srv/docs')).toBe(-1);
    expect(indexOfPair(equal, '--bind', '/srv/out')).toBeGreaterThan(0);
    const under = bwrapArgs({
      ...plan,
      mounts: [
        { path: '/data/secrets', mode: 'ro' },
        { path: '/home/u/.ssh/keys', mode: 'rw' },
      ],
    });
    expect(under).not.toContain('/data/secrets');
    expect(under).not.toContain('/home/u/.ssh/keys');
    // The workspace is the one folder shown inside a denied one (the data dir).
    expect(indexOfPair(under, '--bind', plan.workspace)).toBeGreaterThan(0);
  });

  it('a denied path inside a granted folder is masked even under a deeper grant', () => {
    const args = bwrapArgs({
      ...plan,
      mounts: [
        { path: '/home/u', mode: 'rw' },
        { path: '/home/u/.config/app', mode: 'ro' },
      ],
      denied: [
        { path: '/home/u/.config', kind: 'dir' },
        { path: '/home/u/.config/app/token', kind: 'file' },
      ],
    });
    expect(indexOfPair(args, '--tmpfs', '/home/u/.config')).toBeGreaterThan(
      indexOfPair(args, '--bind', '/home/u'),
    );
    // The grant inside the denied folder is dropped, so the token needs no mask of its own.
    expect(args).not.toContain('/home/u/.config/app');
    expect(args).not.toContain('/home/u/.config/app/token');
  });

  it('recreates the links on the way to a grant where nothing bound holds them', () => {
    const args = bwrapArgs({
      ...plan,
      links: [
        { path: '/tmp/docs-link', link: '/srv/docs' },
        { path: '/srv/docs/inner-link', link: 'x' },
        { path: '/bin', link: 'usr/bin' },
      ],
    });
    const link = indexOfPair(args, '--symlink', '/srv/docs');
    expect(args[link + 2]).toBe('/tmp/docs-link');
    expect(link).toBeGreaterThan(indexOfPair(args, '--tmpfs', '/tmp'));
    // Inside a bound folder the host's own link is there; /bin comes with the system view.
    expect(args).not.toContain('/srv/docs/inner-link');
    expect(args.filter((arg) => arg === '/bin')).toHaveLength(1);
  });

  it('binds ro grants read-only and masks a denied path inside a grant after the grant', () => {
    const args = bwrapArgs(plan);
    expect(indexOfPair(args, '--ro-bind', '/srv/docs')).toBeGreaterThan(0);
    expect(indexOfPair(args, '--bind', '/srv/out')).toBeGreaterThan(0);
    expect(indexOfPair(args, '--tmpfs', '/srv/docs/private')).toBeGreaterThan(
      indexOfPair(args, '--ro-bind', '/srv/docs'),
    );
    expect(indexOfPair(args, '--remount-ro', '/srv/docs/private')).toBeGreaterThan(0);
  });

  it('read-only and hidden workspaces; filesystem mode full binds the whole root writable', () => {
    expect(
      indexOfPair(bwrapArgs({ ...plan, workspaceMode: 'ro' }), '--ro-bind', plan.workspace),
    ).toBeGreaterThan(0);
    expect(
      indexOfPair(bwrapArgs({ ...plan, workspaceMode: 'hidden' }), '--bind', plan.workspace),
    ).toBe(-1);
    const full = bwrapArgs({ ...plan, writableRoot: true });
    expect(full.slice(0, 3)).toEqual(['--bind', '/', '/']);
    expect(full).not.toContain('/usr');
    expect(indexOfPair(full, '--remount-ro', '/')).toBe(-1);
    // Everything is in view there, so every denied path is masked.
    expect(indexOfPair(full, '--tmpfs', '/home/u/.ssh')).toBeGreaterThan(0);
    expect(args(full, '/etc/shadow')).toBe('/dev/null');
  });
});

/** The source bound at `target`. */
function args(list: string[], target: string): string | undefined {
  const index = list.findIndex((arg, i) => arg === target && list[i - 2] === '--ro-bind');
  return index > 0 ? list[index - 1] : undefined;
}

describe('limits', () => {
  it('prlimit: CPU soft then hard, address space, processes, files, file size', () => {
    const args = prlimitArgs({ ...DEFAULT_LIMITS, cpuSeconds: 5, memoryMb: 100 });
    expect(args).toEqual([
      '--cpu=5:6',
      `--as=${100 * 1024 * 1024}`,
      `--nproc=${DEFAULT_LIMITS.maxProcesses}`,
      `--nofile=${DEFAULT_LIMITS.maxOpenFiles}`,
      `--fsize=${DEFAULT_LIMITS.maxFileBytes}`,
      '--',
    ]);
  });

  it('workers: no address-space limit (V8 reserves gigabytes) and unlimited CPU when asked', () => {
    const args = prlimitArgs(
      { ...DEFAULT_LIMITS, cpuSeconds: Number.POSITIVE_INFINITY },
      { worker: true },
    );
    expect(args.some((a) => a.startsWith('--as='))).toBe(false);
    expect(args[0]).toBe('--cpu=unlimited:unlimited');
    expect(ulimitScript(DEFAULT_LIMITS, { worker: true })).not.toContain('ulimit -v');
    expect(ulimitScript(DEFAULT_LIMITS)).toContain(`ulimit -v ${DEFAULT_LIMITS.memoryMb * 1024}`);
  });
});

describe('Seatbelt profile', () => {
  it('denies by default and reads only the system view, temp, the workspace and the grants', () => {
    const profile = seatbeltProfile(plan);
    const lines = profile.split('\n');
    expect(lines[1]).toBe('(deny default)');
    expect(profile).not.toContain('(allow file-read*)');
    expect(profile).toContain('(allow file-read* (subpath "/usr"))');
    expect(profile).toContain('(allow file-read* (subpath "/etc/passwd"))');
    expect(profile).toContain('(allow file-read* (literal "/bin"))');
    expect(profile).toContain('(allow file-read* (subpath "/srv/docs"))');
    // The home and the data dir appear only in denials (defence in depth), never allowed.
    for (const line of lines.filter((l) => l.startsWith('(allow')))
      expect(line).not.toMatch(/\/home|"\/data"/);
    expect(profile).toContain(
      '(allow file-read* file-write* (subpath "/private/tmp") (subpath "/private/var/folders"))',
    );
  });

  it('writes only to rw grants, network only when granted', () => {
    const profile = seatbeltProfile(plan);
    expect(profile).toContain('(allow file-read* file-write* (subpath "/data/workspace/pincer"))');
    expect(profile).toContain('(allow file-read* file-write* (subpath "/srv/out"))');
    expect(profile).not.toMatch(/file-write\* \(subpath "\/srv\/docs"\)/);
    expect(profile).not.toContain('network');
    expect(seatbeltProfile({ ...plan, network: true })).toContain('(allow network*)');
    const readOnly = seatbeltProfile({ ...plan, workspaceMode: 'ro' });
    expect(readOnly).toContain('(allow file-read* (subpath "/data/workspace/pincer"))');
    expect(readOnly).not.toContain('file-write* (subpath "/data/workspace/pincer")');
    expect(seatbeltProfile({ ...plan, workspaceMode: 'hidden' })).not.toContain(
      '/data/workspace/pincer',
    );
  });

  it('a grant equal to or inside a denied path is left out of the profile', () => {
    const profile = seatbeltProfile({
      ...plan,
      mounts: [
        ...plan.mounts,
        { path: '/home/u/.ssh', mode: 'ro' },
        { path: '/data/x', mode: 'rw' },
      ],
    });
    expect(profile).not.toContain('(allow file-read* (subpath "/home/u/.ssh"))');
    expect(profile).not.toContain('"/data/x"');
    expect(profile).toContain('(deny file-read* file-write* (subpath "/home/u/.ssh"))');
  });

  it('outer rules first: a denial inside a grant wins, the workspace inside a denial wins', () => {
    const lines = seatbeltProfile(plan).split('\n');
    const at = (text: string) => lines.findIndex((line) => line.includes(text));
    expect(at('(deny file-read* file-write* (subpath "/srv/docs/private"))')).toBeGreaterThan(
      at('(allow file-read* (subpath "/srv/docs"))'),
    );
    // The workspace inside the denied data dir stays usable.
    expect(at('(allow file-read* file-write* (subpath "/data/workspace/pincer"))')).toBeGreaterThan(
      at('(deny file-read* file-write* (subpath "/data"))'),
    );
    expect(lines).toContain('(deny file-read* file-write* (literal "/etc/shadow"))');
  });
});
