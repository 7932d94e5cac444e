#!/usr/bin/env node
/**
 * `npm start`: build and launch the desktop app. Electron's binary is downloaded on first launch;
 * where that cannot happen (offline, or a registry-only network) say so plainly and point to the
 * headless path instead of failing with a stack trace.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

function electronBinary() {
  try {
    const dir = path.dirname(require.resolve('electron/package.json'));
    const relative = readFileSync(path.join(dir, 'path.txt'), 'utf8').trim();
    const binary = path.join(
      process.env.ELECTRON_OVERRIDE_DIST_PATH ?? path.join(dir, 'dist'),
      relative,
    );
    return existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

function download() {
  if (process.env.PINCER_NO_ELECTRON_DOWNLOAD) return false;
  console.log('Downloading the Electron binary (first launch only)...');
  const installer = path.join(path.dirname(require.resolve('electron/package.json')), 'install.js');
  return spawnSync(process.execPath, [installer], { stdio: 'inherit' }).status === 0;
}

if (!electronBinary() && !(download() && electronBinary())) {
  console.error(`
Pincer's desktop app needs the Electron binary, and it could not be downloaded on this machine.

The headless path works without it:
  npx pincer doctor     check what this machine supports
  npx pincer --help     every command

Once the machine can reach Electron's downloads, run \`npm start\` again.`);
  process.exit(1);
}

const result = spawnSync('npx', ['electron-vite', 'preview', ...process.argv.slice(2)], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
