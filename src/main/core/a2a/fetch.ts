/**
 * The `fetch` every A2A request of Pincer's goes through (a remote agent's card and calls, push
 * notifications to a client's receiver): each request is checked like net/fetch's hops (http or
 * https only; a loopback, private, link-local or otherwise internal address refused unless an
 * address grant names it) and its connection pinned to the address checked, so a DNS answer
 * that changes in between cannot reach an internal one. Redirects are not followed.
 */
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { checkHop, type NetworkScope, pinnedLookup } from '../tools/index.js';

/** Bodies of requests and responses this large are refused or cut (a card, a task, events). */
export const MAX_A2A_BODY_BYTES = 8 * 1024 * 1024;

/**
 * `grants`: host grants (network/host-grant.ts); only IP-literal ones reach an internal
 * address, as in the sandbox's allowed_hosts.
 */
export function guardedFetch(grants: readonly string[]): typeof fetch {
  const scope: NetworkScope = { mode: 'allow-all', allowedHosts: grants, blockPrivate: true };
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const pinned = await checkHop(url, scope, false);
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    if (body && body.length > MAX_A2A_BODY_BYTES)
      throw new Error(`an A2A request is limited to ${MAX_A2A_BODY_BYTES} bytes`);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, key) => {
      headers[key] = value;
    });
    const client = url.protocol === 'https:' ? https : http;
    return new Promise<Response>((resolve, reject) => {
      const outgoing = client.request(
        url,
        { method: request.method, headers, lookup: pinnedLookup(pinned), signal: request.signal },
        (incoming) => {
          const status = incoming.statusCode ?? 502;
          const responseHeaders = new Headers();
          for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2)
            responseHeaders.append(
              incoming.rawHeaders[i] as string,
              incoming.rawHeaders[i + 1] as string,
            );
          const empty = status === 204 || status === 304 || request.method === 'HEAD';
          if (empty) incoming.resume();
          resolve(
            new Response(
              empty ? null : (Readable.toWeb(capped(incoming)) as ReadableStream<Uint8Array>),
              { status, statusText: incoming.statusMessage ?? '', headers: responseHeaders },
            ),
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  };
}

/** The response body, ended with an error once it passes MAX_A2A_BODY_BYTES. */
function capped(incoming: http.IncomingMessage): Readable {
  let size = 0;
  const out = new Readable({ read: () => incoming.resume() });
  incoming.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_A2A_BODY_BYTES) {
      incoming.destroy();
      out.destroy(new Error(`an A2A response is limited to ${MAX_A2A_BODY_BYTES} bytes`));
      return;
    }
    if (!out.push(chunk)) incoming.pause();
  });
  incoming.once('end', () => out.push(null));
  incoming.once('error', (error) => out.destroy(error));
  return out;
}
