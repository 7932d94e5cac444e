import { describe, expect, it } from 'vitest';
import { bwrapArgs, type ConfinementPlan } from '../../../src/main/core/sandbox/bwrap.js';
import { prlimitArgs, ulimitScript } from '../../../src/main/core/sandbox/limits.js';
import { seatbeltProfile } from '../../../src/main/core/sandbox/seatbelt.js';
import { DEFAULT_LIMITS } from '../../../src/main/core/sandbox/settings.js';

const plan: ConfinementPlan = {
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
  it('read-only root, private /tmp, new namespaces, no network, die with parent', () => {
    const args = bwrapArgs(plan);
    expect(args.slice(0, 3)).toEqual(['--ro-bind', '/', '/']);
    expect(indexOfPair(args, '--tmpfs', '/tmp')).toBeGreaterThan(0);
    for (const flag of ['--unshare-pid', '--unshare-net', '--die-with-parent', '--new-session'])
      expect(args).toContain(flag);
    expect(args).toContain('--unshare-user');
    expect(args).not.toContain('--cap-drop');
    expect(args.slice(-2)).toEqual(['--chdir', '/data/workspace/pincer']);
  });

  it('keeps the network only when granted; root drops every capability', () => {
    const args = bwrapArgs({ ...plan, network: true, asRoot: true });
    expect(args).not.toContain('--unshare-net');
    expect(indexOfPair(args, '--cap-drop', 'ALL')).toBeGreaterThan(0);
    expect(args).not.toContain('--unshare-user');
  });

  it('masks a denied folder around the workspace first, binds the grant back, then remounts it read-only', () => {
    const args = bwrapArgs(plan);
    const mask = indexOfPair(args, '--tmpfs', '/data');
    const bind = indexOfPair(args, '--bind', '/data/workspace/pincer');
    const readOnly = indexOfPair(args, '--remount-ro', '/data');
    expect(mask).toBeGreaterThan(0);
    expect(bind).toBeGreaterThan(mask);
    expect(readOnly).toBeGreaterThan(bind);
  });

  it('masks only the outermost of nested denied folders (~/.config around the data dir)', () => {
    const args = bwrapArgs({
      ...plan,
      denied: [
        { path: '/home/u/.config', kind: 'dir' },
        { path: '/home/u/.config/Pincer', kind: 'dir' },
        { path: '/home/u/.config/Pincer/secret.json', kind: 'file' },
      ],
      workspace: '/home/u/.config/Pincer/workspace/me',
    });
    expect(indexOfPair(args, '--tmpfs', '/home/u/.config')).toBeGreaterThan(0);
    expect(args).not.toContain('/home/u/.config/Pincer');
    expect(args).not.toContain('/home/u/.config/Pincer/secret.json');
    expect(indexOfPair(args, '--remount-ro', '/home/u/.config')).toBeGreaterThan(
      indexOfPair(args, '--bind', '/home/u/.config/Pincer/workspace/me'),
    );
  });

  it('an explicit grant of a denied path wins, as it does for the file tools', () => {
    const args = bwrapArgs({ ...plan, denied: [{ path: '/srv/docs', kind: 'dir' }] });
    expect(indexOfPair(args, '--tmpfs', '/srv/docs')).toBe(-1);
    expect(indexOfPair(args, '--ro-bind', '/srv/docs')).toBeGreaterThan(0);
  });

  it('binds ro grants read-only and masks a denied path inside a grant after the grant', () => {
    const args = bwrapArgs(plan);
    expect(indexOfPair(args, '--ro-bind', '/srv/docs')).toBeGreaterThan(0);
    expect(indexOfPair(args, '--bind', '/srv/out')).toBeGreaterThan(0);
    expect(indexOfPair(args, '--tmpfs', '/srv/docs/private')).toBeGreaterThan(
      indexOfPair(args, '--ro-bind', '/srv/docs'),
    );
    expect(indexOfPair(args, '--ro-bind', '/dev/null')).toBeGreaterThan(0);
    expect(args[indexOfPair(args, '--ro-bind', '/dev/null') + 2]).toBe('/etc/shadow');
  });

  it('read-only and hidden workspaces, and a writable root for filesystem mode full', () => {
    expect(
      indexOfPair(bwrapArgs({ ...plan, workspaceMode: 'ro' }), '--ro-bind', plan.workspace),
    ).toBeGreaterThan(0);
    expect(
      indexOfPair(bwrapArgs({ ...plan, workspaceMode: 'hidden' }), '--bind', plan.workspace),
    ).toBe(-1);
    expect(bwrapArgs({ ...plan, writableRoot: true }).slice(0, 3)).toEqual(['--bind', '/', '/']);
  });
});

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
  it('denies by default, writes only to grants, denials last, network only when granted', () => {
    const profile = seatbeltProfile(plan);
    const lines = profile.split('\n');
    expect(lines[1]).toBe('(deny default)');
    expect(profile).toContain('(allow file-write* (subpath "/data/workspace/pincer"))');
    expect(profile).toContain('(allow file-write* (subpath "/srv/out"))');
    expect(profile).not.toContain('(allow file-write* (subpath "/srv/docs"))');
    expect(lines.at(-1)).toBe('(deny file-read* file-write* (subpath "/srv/docs/private"))');
    expect(profile).not.toContain('network');
    expect(seatbeltProfile({ ...plan, network: true })).toContain('(allow network*)');
  });
});
