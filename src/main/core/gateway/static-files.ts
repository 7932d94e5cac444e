import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import { RENDERER_CSP } from '../../../shared/csp.js';
import { mimeTypeOf, resolveRendererPath } from '../desktop/index.js';
import { requestPathname } from '../network/index.js';

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
  const pathname = requestPathname(request.url);
  if (pathname === undefined) {
    response.writeHead(400, securityHeaders).end();
    return;
  }
  // The same confinement as the desktop app's app:// scheme: no `..`, no link out of root.
  const file = await resolveRendererPath(root, pathname);
  const info = file ? await stat(file).catch(() => null) : null;
  if (!file || !info?.isFile()) {
    response.writeHead(404, { 'content-type': 'text/plain', ...securityHeaders }).end('not found');
    return;
  }
  response.writeHead(200, {
    'content-type': mimeTypeOf(file),
    'content-length': info.size,
    'cache-control': pathname.startsWith('/assets/') ? 'max-age=31536000, immutable' : 'no-cache',
    ...securityHeaders,
  });
  if (request.method === 'HEAD') response.end();
  // pipeline, not pipe: a file that vanishes or a client that resets mid-transfer is an error
  // handled here (the response is destroyed), not an unhandled 'error' event.
  else pipeline(createReadStream(file), response, () => undefined);
}
