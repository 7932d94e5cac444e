import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream';
import { RENDERER_CSP } from '../../../shared/csp.js';

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

const securityHeaders = {
  'content-security-policy': RENDERER_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** Serves the built renderer read-only; nothing outside `root` is reachable. */
export async function serveStatic(
  root: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { allow: 'GET, HEAD', ...securityHeaders }).end();
    return;
  }
  let pathname: string;
  try {
    pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://gateway').pathname);
  } catch {
    response.writeHead(400, securityHeaders).end();
    return;
  }
  const file = path.resolve(root, `.${pathname === '/' ? '/index.html' : pathname}`);
  if (!file.startsWith(root + path.sep)) {
    response.writeHead(403, securityHeaders).end();
    return;
  }
  const info = await stat(file).catch(() => null);
  if (!info?.isFile()) {
    response.writeHead(404, { 'content-type': 'text/plain', ...securityHeaders }).end('not found');
    return;
  }
  response.writeHead(200, {
    'content-type': contentTypes[path.extname(file)] ?? 'application/octet-stream',
    'content-length': info.size,
    'cache-control': pathname.startsWith('/assets/') ? 'max-age=31536000, immutable' : 'no-cache',
    ...securityHeaders,
  });
  if (request.method === 'HEAD') response.end();
  // pipeline, not pipe: a file that vanishes or a client that resets mid-transfer is an error
  // handled here (the response is destroyed), not an unhandled 'error' event.
  else pipeline(createReadStream(file), response, () => undefined);
}
