/**
 * The packaged renderer's app://pincer/ scheme (issue 24: not file://): which URLs reach which
 * files, answered from a real folder with real links, and the Electron glue that registers it.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  APP_ENTRY_URL,
  isAppUrl,
  rendererFile,
  serveRendererRequest,
} from '../../../src/main/core/desktop/renderer-files.js';
import { RENDERER_CSP } from '../../../src/shared/csp.js';
import * as electron from './fake-electron-module.js';

vi.mock('electron', () => import('./fake-electron-module.js'));
const { registerRendererScheme, serveBuiltRenderer, isTrustedRendererUrl, rendererUrl } =
  await import('../../../src/main/app/renderer-origin.js');

let dir = '';
let root = '';

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-renderer-'));
  root = path.join(dir, 'renderer');
  await mkdir(path.join(root, 'assets'), { recursive: true });
  await writeFile(path.join(root, 'index.html'), '<!doctype html><title>Pincer</title>');
  await writeFile(path.join(root, 'assets', 'index-abc.js'), 'console.log(1)');
  await writeFile(path.join(root, 'assets', 'index-abc.css'), 'body{}');
  await writeFile(path.join(root, 'assets', 'logo.svg'), '<svg/>');
  await writeFile(path.join(root, 'assets', 'blob.bin'), 'x');
  // Outside the renderer: what an attacker would want to read.
  await writeFile(path.join(dir, 'secret.txt'), 'SECRET');
  await mkdir(path.join(dir, 'outside'));
  await writeFile(path.join(dir, 'outside', 'key'), 'SECRET');
  await symlink(path.join(dir, 'secret.txt'), path.join(root, 'link.txt'));
  await symlink(path.join(dir, 'outside'), path.join(root, 'assets', 'out'));
  await symlink('/etc/hostname', path.join(root, 'host.txt'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const get = (url: string, method = 'GET') => serveRendererRequest(root, { url, method });

describe('app://pincer/ answers from the built renderer folder only', () => {
  it('serves the entry page and assets with their MIME types and the CSP', async () => {
    const cases: [string, string][] = [
      [APP_ENTRY_URL, 'text/html; charset=utf-8'],
      ['app://pincer/', 'text/html; charset=utf-8'],
      ['app://pincer/assets/index-abc.js', 'text/javascript; charset=utf-8'],
      ['app://pincer/assets/index-abc.css', 'text/css; charset=utf-8'],
      ['app://pincer/assets/logo.svg', 'image/svg+xml'],
      ['app://pincer/assets/blob.bin', 'application/octet-stream'],
    ];
    for (const [url, type] of cases) {
      const response = await get(url);
      expect(response.status, url).toBe(200);
      expect(response.headers.get('content-type'), url).toBe(type);
      expect(response.headers.get('content-security-policy'), url).toBe(RENDERER_CSP);
      expect(response.headers.get('x-content-type-options'), url).toBe('nosniff');
    }
    expect(await (await get(APP_ENTRY_URL)).text()).toContain('<title>Pincer</title>');
  });

  it('ignores query strings and fragments', async () => {
    const response = await get('app://pincer/index.html?v=2#/settings');
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('Pincer');
  });

  it('answers 404, with the CSP, for every way out of the folder', async () => {
    const escapes = [
      'app://pincer/../secret.txt',
      'app://pincer/%2e%2e/secret.txt',
      'app://pincer/%2E%2E/%2e%2e/secret.txt',
      'app://pincer/assets/..%2f..%2fsecret.txt',
      'app://pincer/..%5csecret.txt',
      'app://pincer/%2fetc%2fhostname',
      `app://pincer/${encodeURIComponent(path.join(dir, 'secret.txt'))}`,
      'app://pincer//etc/hostname',
      'app://pincer/index.html%00.js',
      'app://pincer/%E0%A4%A',
      // Symbolic links, to a file and to a folder outside, and to a system file.
      'app://pincer/link.txt',
      'app://pincer/assets/out/key',
      'app://pincer/host.txt',
      // Another host or scheme never reaches the folder.
      'app://evil/index.html',
      'app://user@pincer/index.html',
      `file://${path.join(root, 'index.html')}`,
      // Directories and missing files.
      'app://pincer/assets',
      'app://pincer/assets/',
      'app://pincer/missing.js',
    ];
    for (const url of escapes) {
      const response = await get(url);
      expect(response.status, url).toBe(404);
      expect(response.headers.get('content-security-policy'), url).toBe(RENDERER_CSP);
      expect(await response.text(), url).not.toContain('SECRET');
    }
    for (const url of escapes) expect(await rendererFile(root, url), url).toBeUndefined();
  });

  it('answers HEAD without a body and refuses other methods', async () => {
    const head = await get(APP_ENTRY_URL, 'HEAD');
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await get(APP_ENTRY_URL, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it("trusts the app's origin alone for IPC and navigation", () => {
    expect(isAppUrl('app://pincer/index.html#/settings')).toBe(true);
    expect(isAppUrl('app://pincer/')).toBe(true);
    for (const url of [
      'app://evil/index.html',
      'app://pincer.evil/index.html',
      'app://user@pincer/index.html',
      'file:///opt/Pincer/resources/app.asar/out/renderer/index.html',
      'https://pincer/index.html',
      'not a url',
    ]) {
      expect(isAppUrl(url), url).toBe(false);
    }
  });
});

describe('the Electron glue of the scheme (stand-in electron module)', () => {
  it('registers app as a standard, secure scheme and serves the folder through protocol.handle', async () => {
    // The tests run without electron-vite's dev server, as a packaged build does.
    expect(process.env.ELECTRON_RENDERER_URL).toBeUndefined();
    registerRendererScheme();
    expect(electron.protocol.privileged).toEqual([
      { scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } },
    ]);
    serveBuiltRenderer(root);
    const handler = electron.protocol.handlers.get('app');
    if (!handler) throw new Error('no handler for app://');
    const response = await handler(new Request('app://pincer/assets/index-abc.js'));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('console.log(1)');
    expect((await handler(new Request('app://pincer/link.txt'))).status).toBe(404);
    expect(rendererUrl()).toBe('app://pincer/index.html');
    expect(isTrustedRendererUrl('app://pincer/index.html#/chat')).toBe(true);
    expect(isTrustedRendererUrl(`file://${path.join(root, 'index.html')}`)).toBe(false);
  });
});
