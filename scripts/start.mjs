#!/usr/bin/env node
/**
 * `npm start`: build and launch the desktop app. Where the desktop app cannot run (no display,
 * or Electron's binary is missing and cannot be downloaded: offline, a registry-only network),
 * serve the same UI in the browser instead (`pincer gateway`), print its address, open a
 * browser where there is one, and say which of these happened.
 */
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const root = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);

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
  try {
    const installer = path.join(
      path.dirname(require.resolve('electron/package.json')),
      'install.js',
    );
    return spawnSync(process.execPath, [installer], { stdio: 'inherit' }).status === 0;
  } catch {
    return false;
  }
}

/** X11 or Wayland on Linux and the BSDs; macOS and Windows always have one. */
function hasDisplay() {
  if (process.platform === 'darwin' || process.platform === 'win32') return true;
  return Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

function onPath(program) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    try {
      accessSync(path.join(dir, program), constants.X_OK);
      return true;
    } catch {}
  }
  return false;
}

/** The command that opens a URL in the browser here, or null where there is none. */
function browserOpener() {
  if (process.env.PINCER_NO_BROWSER) return null;
  if (process.platform === 'darwin') return onPath('open') ? ['open'] : null;
  if (process.platform === 'win32') return ['rundll32', 'url.dll,FileProtocolHandler'];
  return hasDisplay() && onPath('xdg-open') ? ['xdg-open'] : null;
}

function desktopApp() {
  const result = spawnSync('npx', ['electron-vite', 'preview', ...args], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}

function browserUi(why) {
  console.log(`Pincer's desktop app cannot run here (${why}): serving the browser UI instead.`);
  const cli = path.join(root, 'dist', 'cli.js');
  if (!existsSync(cli) || !existsSync(path.join(root, 'out', 'renderer', 'index.html'))) {
    console.log('Building the UI and the CLI first...');
    if (spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' }).status !== 0) {
      console.error('The build failed; see above.');
      process.exit(1);
    }
  }
  const gateway = spawn(process.execPath, [cli, 'gateway', ...args], {
    cwd: root,
    stdio: ['inherit', 'pipe', 'inherit'],
  });
  let pending = '';
  let opened = false;
  gateway.stdout.setEncoding('utf8').on('data', (chunk) => {
    process.stdout.write(chunk);
    if (opened) return;
    pending += chunk;
    const url = /^Open: (http:\/\/127\.0\.0\.1:\d+\/\S*)$/m.exec(pending)?.[1];
    if (!url) return;
    opened = true;
    pending = '';
    openBrowser(url);
  });
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => gateway.kill(signal));
  }
  gateway.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
}

function openBrowser(url) {
  const opener = browserOpener();
  if (!opener) {
    console.log('No browser to open here: open the address above in a browser.');
    return;
  }
  const [command, ...rest] = opener;
  try {
    const child = spawn(command, [...rest, url], { stdio: 'ignore', detached: true });
    // A missing or failing opener is not an error: the address is printed above.
    child.on('error', () => console.log('Could not open a browser: open the address above.'));
    child.unref();
    console.log(`Opened the address above in your browser (${command}).`);
  } catch {
    console.log('Could not open a browser: open the address above.');
  }
}

if (!hasDisplay()) browserUi('no display');
else if (electronBinary() || (download() && electronBinary())) desktopApp();
else browserUi('the Electron binary is missing and could not be downloaded');
