/**
 * The packaged renderer's own origin. Electron's security checklist prefers a custom protocol
 * to file://, where a page may read any file its URL can name: the built renderer is served
 * from `app://pincer/`, registered as a privileged (standard, secure) scheme, and this module
 * decides every answer: only regular files inside the built renderer folder, reached without
 * `..`, encoded separators or symbolic links, with their MIME type and the renderer's CSP.
 * Plain Node (the Electron glue passes requests through), so it is tested with real files.
 */
import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { RENDERER_CSP } from '../../../shared/csp.js';

export const APP_SCHEME = 'app';
export const APP_HOST = 'pincer';
export const APP_ENTRY_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

/**
 * `standard` gives the scheme an origin of its own (relative URLs, storage, 'self' in the
 * CSP), `secure` makes it a secure context like https, `supportFetchAPI` lets the page fetch
 * its own assets. No CSP bypass, no service workers.
 */
export const APP_SCHEME_PRIVILEGES = {
  standard: true,
  secure: true,
  supportFetchAPI: true,
} as const;

/** Whether `raw` is on the renderer's origin (any path: the app routes by hash). */
export function isAppUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    // Non-special schemes have an opaque `origin` ("null"), so compare scheme and host.
    return url.protocol === `${APP_SCHEME}:` && url.host === APP_HOST && !url.username;
  } catch {
    return false;
  }
}

const MIME_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
};

/** Sent with every answer, errors included. */
const COMMON_HEADERS = {
  'Content-Security-Policy': RENDERER_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-cache',
};

export interface RendererRequest {
  url: string;
  method: string;
}

/** Answers one request for `app://pincer/...` from the built renderer folder `root`. */
export async function serveRendererRequest(
  root: string,
  request: RendererRequest,
): Promise<Response> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return answer(405, { Allow: 'GET, HEAD' });
  }
  const file = await rendererFile(root, request.url);
  if (!file) return answer(404);
  const body = await readFile(file).catch(() => undefined);
  if (!body) return answer(404);
  return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), {
    status: 200,
    headers: {
      ...COMMON_HEADERS,
      'Content-Type': mimeTypeOf(file),
      'Content-Length': String(body.length),
    },
  });
}

/** The file an `app://pincer/...` URL names inside `root`, or undefined (see below). */
export async function rendererFile(root: string, raw: string): Promise<string | undefined> {
  if (!isAppUrl(raw)) return undefined;
  return resolveRendererPath(root, new URL(raw).pathname);
}

/**
 * The file a URL path (still percent-encoded) names inside `root`, or undefined: a `.`/`..`
 * or empty segment, an encoded slash, backslash or NUL, a symbolic link anywhere below `root`,
 * or anything but a regular file. `/` is the entry page. Shared by the app:// scheme and the
 * gateway's static files, so both confine the same way.
 */
export async function resolveRendererPath(
  root: string,
  pathname: string,
): Promise<string | undefined> {
  const segments = (pathname === '/' ? '/index.html' : pathname).slice(1).split('/');
  let current = path.resolve(root);
  for (const encoded of segments) {
    let segment: string;
    try {
      segment = decodeURIComponent(encoded);
    } catch {
      return undefined;
    }
    if (!segment || segment === '.' || segment === '..' || /[/\\\0]/.test(segment)) {
      return undefined;
    }
    current = path.join(current, segment);
    // lstat each step: a link is refused wherever it points, so nothing outside is reachable.
    const info = await lstat(current).catch(() => undefined);
    if (!info || info.isSymbolicLink()) return undefined;
  }
  const info = await lstat(current).catch(() => undefined);
  return info?.isFile() ? current : undefined;
}

export function mimeTypeOf(file: string): string {
  return MIME_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

function answer(status: number, headers: Record<string, string> = {}): Response {
  return new Response(null, { status, headers: { ...COMMON_HEADERS, ...headers } });
}
