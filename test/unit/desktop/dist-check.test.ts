import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkDistribution, hostTarget, pngSize, TRAY_ICONS } from '../../../scripts/dist-check.js';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const require = createRequire(path.join(repoRoot, 'package.json'));

let scratch = '';
afterEach(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
  scratch = '';
});

/** A copy of what packaging reads, with node_modules linked, and one file changed. */
async function project(
  edit: (files: { config: string; pkg: string }) => {
    config?: string;
    pkg?: string;
  },
) {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'pincer-dist-'));
  for (const entry of ['build', 'resources', 'models/catalog.json', 'package-lock.json']) {
    await cp(path.join(repoRoot, entry), path.join(scratch, entry), { recursive: true });
  }
  await symlink(path.join(repoRoot, 'node_modules'), path.join(scratch, 'node_modules'), 'dir');
  const config = await readFile(path.join(repoRoot, 'electron-builder.yml'), 'utf8');
  const pkg = await readFile(path.join(repoRoot, 'package.json'), 'utf8');
  const changed = edit({ config, pkg });
  await writeFile(path.join(scratch, 'electron-builder.yml'), changed.config ?? config);
  await writeFile(path.join(scratch, 'package.json'), changed.pkg ?? pkg);
  return scratch;
}

describe('npm run dist:check', () => {
  it("passes on the repository's builder config and lists what would be packaged", async () => {
    const report = await checkDistribution(repoRoot, { requireBuild: false });
    expect(report.errors).toEqual([]);
    expect(report.electronVersion).toMatch(/^\d+\.\d+\.\d+$/);
    expect(report.app.files).toEqual(
      expect.arrayContaining([
        'package.json',
        'models/catalog.json',
        'resources/claw.yaml',
        ...TRAY_ICONS,
      ]),
    );
    expect(report.app.files.some((file) => file.startsWith('src/'))).toBe(false);
    expect(report.dependencies).toEqual(
      expect.arrayContaining(['better-sqlite3', 'electron-updater']),
    );
    expect(report.dependencies).not.toContain('electron');
    expect(report.dependencies).not.toContain('electron-builder');
    const unpackedFrom = new Set(report.unpacked.files.map((file) => file.split('/')[1]));
    for (const name of ['better-sqlite3', 'node-llama-cpp', 'sqlite-vec']) {
      expect(unpackedFrom.has(name), name).toBe(true);
    }
  }, 60_000);

  it("takes only the target's CPU build of llama.cpp; the GPU variant adds CUDA and Vulkan", async () => {
    const { os: targetOs, arch } = hostTarget();
    const own = `@node-llama-cpp/${targetOs}-${arch}`;
    const llama = (list: Array<{ name: string }>) =>
      list.map((p) => p.name).filter((name) => name.startsWith('@node-llama-cpp/'));
    const cpu = await checkDistribution(repoRoot, { requireBuild: false });
    expect(cpu.errors).toEqual([]);
    const installed = [...llama(cpu.platformPackages.shipped), ...llama(cpu.platformPackages.left)];
    expect(installed).toContain(own);
    expect(llama(cpu.platformPackages.shipped)).toEqual(
      installed.filter((name) => name === own || name === `${own}-metal`),
    );
    const gpu = await checkDistribution(repoRoot, {
      requireBuild: false,
      config: 'electron-builder.gpu.yml',
    });
    expect(gpu.errors).toEqual([]);
    expect(llama(gpu.platformPackages.shipped).sort()).toEqual(
      installed.filter((name) => name === own || name.startsWith(`${own}-`)).sort(),
    );
    // Unpacked next to the archive, so the variant's binaries can load.
    expect(gpu.unpacked.bytes).toBeGreaterThanOrEqual(cpu.unpacked.bytes);
    // Built for another architecture, none of this machine's builds go in.
    const other = await checkDistribution(repoRoot, {
      requireBuild: false,
      target: { os: targetOs, arch: arch === 'arm64' ? 'x64' : 'arm64' },
    });
    expect(llama(other.platformPackages.shipped)).not.toContain(own);
  }, 60_000);

  it('refuses a config that leaves out the target build of llama.cpp', async () => {
    const dir = await project(({ config }) => ({
      config: config.replace(
        '  - "!**/*.map"\n',
        '  - "!**/*.map"\n  - "!**/node_modules/@node-llama-cpp/**"\n',
      ),
    }));
    const { os: targetOs, arch } = hostTarget();
    const { errors } = await checkDistribution(dir, { requireBuild: false });
    expect(errors).toContain(
      `files leaves out @node-llama-cpp/${targetOs}-${arch}: the local model could not run on ${targetOs} ${arch}`,
    );
  }, 60_000);

  it('the app icon is a 512 px PNG', () => {
    expect(pngSize(path.join(repoRoot, 'build/icon.png'))).toEqual({ width: 512, height: 512 });
    expect(pngSize(path.join(repoRoot, 'package.json'))).toBeNull();
  });

  it('reports each broken packaging requirement with a specific error', async () => {
    const dir = await project(({ config, pkg }) => {
      const json = JSON.parse(pkg);
      json.dependencies.electron = json.devDependencies.electron;
      return {
        pkg: JSON.stringify(json),
        config: config
          .replace('    - deb\n', '')
          .replace('  - "**/node_modules/sqlite-vec/**"\n', '')
          .replace('  - "**/*.node"\n', '')
          .replace('  - models/catalog.json\n', '  - models/**\n'),
      };
    });
    await writeFile(path.join(dir, 'models', 'tiny.gguf'), 'GGUF');
    const { errors } = await checkDistribution(dir, { requireBuild: false });
    expect(errors).toEqual(
      expect.arrayContaining([
        'package.json: "electron" must be in devDependencies (electron-builder refuses it)',
        'linux.target must include deb',
        'asarUnpack does not unpack sqlite-vec: it cannot load from app.asar',
        'files: a .gguf model would go inside app.asar; bundle models through extraResources',
      ]),
    );
  }, 60_000);

  it("uses electron-builder's own schema: an unknown option is named", async () => {
    const dir = await project(({ config }) => ({
      config: `${config}\nautoUpdateFeed: https://x\n`,
    }));
    const { errors } = await checkDistribution(dir, { requireBuild: false });
    expect(errors).toEqual([
      "electron-builder.yml is invalid for electron-builder: configuration has an unknown property 'autoUpdateFeed'",
    ]);
  }, 60_000);

  it('refuses an afterPack hook that would leave RunAsNode on, and a missing build', async () => {
    const dir = await project(({ config }) => ({ config }));
    const hook = path.join(dir, 'build/after-pack.cjs');
    await writeFile(
      hook,
      (await readFile(hook, 'utf8')).replace('RunAsNode: false', 'RunAsNode: true'),
    );
    const { errors } = await checkDistribution(dir, { requireBuild: true });
    expect(errors).toEqual([
      'out/main/index.js does not exist: run npm run build first',
      'afterPack: fuse RunAsNode must be off',
    ]);
  }, 60_000);

  it('a built main bundle importing a dev-only package is caught', async () => {
    const dir = await project(({ config }) => ({ config }));
    await cp(path.join(repoRoot, 'package.json'), path.join(dir, 'package.json'));
    await mkdir(path.join(dir, 'out/main'), { recursive: true });
    await writeFile(
      path.join(dir, 'out/main/index.js'),
      'import { app } from "electron";\nimport fs from "node:fs";\nimport path from "path";\nimport { z } from "zod";\nimport { build } from "electron-builder";\n',
    );
    const { errors } = await checkDistribution(dir, { requireBuild: true });
    expect(errors).toEqual([
      'out/main/index.js imports "electron-builder" but electron-builder is not a production dependency: the packaged app would fail',
    ]);
  }, 60_000);

  it('reads imports with a parser: words in strings are not imports; every chunk and require counts', async () => {
    const dir = await project(({ config }) => ({ config }));
    await cp(path.join(repoRoot, 'package.json'), path.join(dir, 'package.json'));
    await mkdir(path.join(dir, 'out/main/chunks'), { recursive: true });
    await writeFile(
      path.join(dir, 'out/main/index.js'),
      [
        'import { createRequire } from "node:module";',
        'import { parse } from "yaml";',
        'const requireNative = createRequire(import.meta.url);',
        'const Database = requireNative("better-sqlite3");',
        'export const label = (failed) => (failed ? "Error from" : "Result of");',
        'export const gone = "the server disconnected from " + "import(\'left-pad\')";',
        "// a comment that says import x from 'not-a-package'",
        'export const later = () => import("./chunks/lazy.js");',
        'export const leftPad = requireNative("left-pad");',
        '',
      ].join('\n'),
    );
    await writeFile(
      path.join(dir, 'out/main/chunks/lazy.js'),
      'export const load = () => import("electron-builder");\nexport const ok = () => import("grammy");\n',
    );
    const { errors } = await checkDistribution(dir, { requireBuild: true });
    expect(errors).toEqual([
      'out/main/chunks/lazy.js imports "electron-builder" but electron-builder is not a production dependency: the packaged app would fail',
      'out/main/index.js imports "left-pad" but left-pad is not a production dependency: the packaged app would fail',
    ]);
  }, 60_000);
});

describe('afterPack hook (the fuses)', () => {
  /** A stand-in Electron binary: the fuse sentinel, wire version 1, 8 fuses in their defaults. */
  function fakeElectron(): Buffer {
    const sentinel = Buffer.from('dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX', 'ascii');
    const wire = Buffer.from([1, 8, 0x31, 0x30, 0x31, 0x31, 0x30, 0x30, 0x31, 0x31]);
    return Buffer.concat([Buffer.alloc(4096, 7), sentinel, wire, Buffer.alloc(4096, 9)]);
  }

  it.each([
    ['linux', 'on: the bubblewrap-confined tool workers run on it', 'pincer'],
    [
      'darwin',
      'off: the keychain trusts the app signature',
      'Pincer.app/Contents/Frameworks/Electron Framework.framework/Electron Framework',
    ],
    ['win32', 'off: a signed binary running any script bypasses allow-lists', 'Pincer.exe'],
  ])('flips the fuses of a %s binary (RunAsNode %s)', async (platform, _why, file) => {
    scratch = await mkdtemp(path.join(os.tmpdir(), 'pincer-fuses-'));
    const binary = path.join(scratch, file);
    await mkdir(path.dirname(binary), { recursive: true });
    await writeFile(binary, fakeElectron());
    const hook = require(path.join(repoRoot, 'build/after-pack.cjs')) as {
      default: (context: unknown) => Promise<void>;
    };
    await hook.default({
      appOutDir: scratch,
      electronPlatformName: platform,
      arch: 1,
      packager: { executableName: 'pincer', appInfo: { productFilename: 'Pincer' } },
    });
    const fuses = require('@electron/fuses') as {
      getCurrentFuseWire(file: string): Promise<Record<string, unknown>>;
      FuseV1Options: Record<string, number>;
    };
    // @electron/fuses finds the framework inside an app bundle itself.
    const wire = await fuses.getCurrentFuseWire(
      platform === 'darwin' ? path.join(scratch, 'Pincer.app') : binary,
    );
    const state = (name: string) => wire[fuses.FuseV1Options[name] as number];
    const ON = 0x31;
    const OFF = 0x30;
    expect(state('RunAsNode')).toBe(platform === 'linux' ? ON : OFF);
    expect(state('EnableCookieEncryption')).toBe(ON);
    expect(state('EnableNodeOptionsEnvironmentVariable')).toBe(OFF);
    expect(state('EnableNodeCliInspectArguments')).toBe(OFF);
    expect(state('EnableEmbeddedAsarIntegrityValidation')).toBe(ON);
    expect(state('OnlyLoadAppFromAsar')).toBe(ON);
    // Untouched fuses keep the binary's value.
    expect(state('LoadBrowserProcessSpecificV8Snapshot')).toBe(0x31);
  });

  it('fails loudly on a binary without fuses instead of shipping it unflipped', async () => {
    scratch = await mkdtemp(path.join(os.tmpdir(), 'pincer-fuses-'));
    await writeFile(path.join(scratch, 'pincer'), Buffer.alloc(1024));
    const hook = require(path.join(repoRoot, 'build/after-pack.cjs')) as {
      default: (context: unknown) => Promise<void>;
    };
    await expect(
      hook.default({
        appOutDir: scratch,
        electronPlatformName: 'linux',
        arch: 1,
        packager: { executableName: 'pincer', appInfo: { productFilename: 'Pincer' } },
      }),
    ).rejects.toThrow(/sentinel/);
  });
});
