/**
 * electron-builder for real, offline: the Linux `dir` target packaged from this repository with
 * a stand-in Electron distribution (a file carrying Electron's fuse wire), so nothing is
 * downloaded. Proves the config, the afterPack fuses, the ASAR contents and the unpacked native
 * modules end to end. Native modules are not rebuilt here (that needs Electron's headers).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const require = createRequire(path.join(repoRoot, 'package.json'));
const builderRequire = createRequire(require.resolve('app-builder-lib'));

const skipReason =
  process.platform !== 'linux'
    ? 'the stand-in Electron distribution is a Linux one'
    : existsSync(path.join(repoRoot, 'out/main/index.js'))
      ? null
      : 'the app is not built: run npm run build';
if (skipReason)
  console.warn(`[desktop] skipping the electron-builder dir packaging test: ${skipReason}`);

let scratch = '';
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe.skipIf(skipReason !== null)('electron-builder --linux dir (offline)', () => {
  it('packages the app: fuses flipped, app.asar holds the app, native modules unpacked', async () => {
    scratch = await mkdtemp(path.join(os.tmpdir(), 'pincer-package-'));
    const dist = path.join(scratch, 'electron-dist');
    await mkdir(dist);
    const sentinel = Buffer.from('dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX', 'ascii');
    const wire = Buffer.from([1, 8, 0x31, 0x30, 0x31, 0x31, 0x30, 0x30, 0x31, 0x31]);
    await writeFile(
      path.join(dist, 'electron'),
      Buffer.concat([Buffer.alloc(64), sentinel, wire]),
      {
        mode: 0o755,
      },
    );
    const output = path.join(scratch, 'release');
    await promisify(execFile)(
      process.execPath,
      [
        require.resolve('electron-builder/cli.js'),
        '--linux',
        'dir',
        '--publish',
        'never',
        `-c.electronDist=${dist}`,
        '-c.npmRebuild=false',
        `-c.directories.output=${output}`,
      ],
      { cwd: repoRoot, env: { ...process.env, CI: 'true' }, maxBuffer: 16 * 1024 * 1024 },
    );
    const appDir = path.join(output, 'linux-unpacked');

    const fuses = require('@electron/fuses') as {
      getCurrentFuseWire(file: string): Promise<Record<string, unknown>>;
      FuseV1Options: Record<string, number>;
    };
    const wireNow = await fuses.getCurrentFuseWire(path.join(appDir, 'pincer'));
    const state = (name: string) => wireNow[fuses.FuseV1Options[name] as number];
    // On Linux the app's binary is the Node that runs the bubblewrap-confined tool workers.
    expect(state('RunAsNode')).toBe(0x31);
    expect(state('EnableCookieEncryption')).toBe(0x31);
    expect(state('EnableEmbeddedAsarIntegrityValidation')).toBe(0x31);
    expect(state('OnlyLoadAppFromAsar')).toBe(0x31);

    const asar = builderRequire('@electron/asar') as { listPackage(file: string): string[] };
    const inside = asar
      .listPackage(path.join(appDir, 'resources/app.asar'))
      .map((entry) => entry.replaceAll('\\', '/'));
    expect(inside).toEqual(
      expect.arrayContaining([
        '/package.json',
        '/out/main/index.js',
        '/out/main/sandbox-worker.js',
        '/out/preload/index.cjs',
        '/out/renderer/index.html',
        '/models/catalog.json',
        '/resources/claw.yaml',
        '/resources/tray/tray-needs-approval.png',
        '/node_modules/zod/package.json',
        '/node_modules/electron-updater/package.json',
      ]),
    );
    for (const devOnly of ['electron', 'electron-builder', 'vitest', 'typescript']) {
      expect(inside, devOnly).not.toContain(`/node_modules/${devOnly}/package.json`);
    }
    expect(inside.some((entry) => entry.startsWith('/src/'))).toBe(false);
    const unpacked = path.join(appDir, 'resources/app.asar.unpacked/node_modules');
    for (const native of ['better-sqlite3', 'node-llama-cpp', 'sqlite-vec']) {
      expect(existsSync(path.join(unpacked, native, 'package.json')), native).toBe(true);
    }
    // llama.cpp: this target's CPU build only; the GPU and other-architecture builds npm
    // installed here stay out of the installer (they are the GPU variant's, or nobody's).
    const builds = await readdir(path.join(repoRoot, 'node_modules/@node-llama-cpp'));
    const own = `linux-${process.arch}`;
    expect(builds).toContain(own);
    for (const build of builds) {
      const shipped =
        existsSync(path.join(unpacked, '@node-llama-cpp', build)) ||
        inside.some((entry) => entry.startsWith(`/node_modules/@node-llama-cpp/${build}/`));
      expect(shipped, build).toBe(build === own);
    }
    // Nor llama.cpp's sources: the app never builds it.
    expect(existsSync(path.join(unpacked, 'node-llama-cpp/llama/gitRelease.bundle'))).toBe(false);
    expect(existsSync(path.join(unpacked, 'node-llama-cpp/dist/index.js'))).toBe(true);
  }, 240_000);
});
