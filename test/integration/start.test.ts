/**
 * `npm start` where the desktop app cannot run: it serves the browser UI (`pincer gateway`),
 * prints the address, and opens a browser only where there is one. Needs the build
 * (`npm run build`): out/renderer and dist/cli.js.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

const repoRoot = path.resolve(import.meta.dirname, '../..');

const started: ChildProcess[] = [];
const scratch: string[] = [];
afterEach(async () => {
  for (const child of started.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }
  for (const dir of scratch.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(prefix: string) {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}

/** Starts `node scripts/start.mjs` and collects its output. */
async function npmStart(env: Record<string, string | undefined>) {
  const home = await tempDir('pincer-start-home-');
  // An empty dist override stands for "the binary was never downloaded".
  const noElectron = await tempDir('pincer-noelectron-');
  const base = { ...process.env };
  delete base.DISPLAY;
  delete base.WAYLAND_DISPLAY;
  const child = spawn(process.execPath, [path.join(repoRoot, 'scripts/start.mjs')], {
    cwd: repoRoot,
    env: {
      ...base,
      PINCER_HOME: home,
      ELECTRON_OVERRIDE_DIST_PATH: noElectron,
      PINCER_NO_ELECTRON_DOWNLOAD: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  const output = { text: '' };
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    output.text += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    output.text += chunk;
  });
  return { child, output };
}

async function openUrl(output: { text: string }) {
  let url = '';
  await vi.waitFor(
    () => {
      url = /^Open: (\S+)$/m.exec(output.text)?.[1] ?? '';
      expect(url, output.text).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#/);
    },
    { timeout: 60_000, interval: 50 },
  );
  return url;
}

describe('npm start where the desktop app cannot run', () => {
  it('no display: serves the browser UI, prints the address, opens no browser and says so', async () => {
    const { output } = await npmStart({});
    const url = await openUrl(output);
    expect(output.text).toContain(
      "Pincer's desktop app cannot run here (no display): serving the browser UI instead.",
    );
    await vi.waitFor(() => expect(output.text).toContain('No browser to open here'), {
      timeout: 10_000,
    });
    // The address really serves the UI.
    const page = await fetch(new URL('/', url));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
  }, 90_000);

  it('a display but no Electron binary: opens the address with xdg-open where it exists', async () => {
    const bin = await tempDir('pincer-start-bin-');
    const record = path.join(bin, 'opened.txt');
    // A stand-in xdg-open that records what it was asked to open.
    const opener = path.join(bin, 'xdg-open');
    await writeFile(opener, `#!/bin/sh\nprintf '%s' "$1" > '${record}'\n`);
    await chmod(opener, 0o755);
    const { output } = await npmStart({
      DISPLAY: ':99',
      PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
    });
    const url = await openUrl(output);
    expect(output.text).toContain('the Electron binary is missing and could not be downloaded');
    await vi.waitFor(async () => expect(await readFile(record, 'utf8').catch(() => '')).toBe(url), {
      timeout: 10_000,
      interval: 50,
    });
    // Printed before the opener ran, but it reaches us through npm's pipe, maybe after the file.
    await vi.waitFor(
      () => expect(output.text).toContain('Opened the address above in your browser (xdg-open).'),
      { timeout: 10_000 },
    );
  }, 90_000);
});
