/**
 * net/fetch: an HTTP(S) GET with a size cap and a deadline. Every hop (redirects included) is
 * checked against the sandbox's network grant, resolved once, and the connection is pinned to
 * the address that was checked, so a DNS answer that changes between the check and the connect
 * (rebinding) cannot reach a loopback, private, link-local (cloud metadata) or otherwise internal
 * address. Only an address grant (`127.0.0.1:8080` in allowed_hosts) reaches one: a host name or
 * wildcard in the allowlist narrows, it never switches the check off.
 */
import { lookup } from 'node:dns/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { CKP_ERRORS } from '../../errors.js';
import {
  grantCoversAddress,
  grantMatchesHost,
  isPrivateAddress,
  parseHostGrant,
} from '../../network/index.js';
import { type NetworkScope, type Tool, type ToolContext, ToolError } from '../types.js';

export { isPrivateAddress };

const PUBLIC_ONLY: NetworkScope = { mode: 'allow-all', allowedHosts: [], blockPrivate: true };
const MAX_HOPS = 5;

/** `host`, `host:port`, `*.domain` or an IP literal against a URL's host and port. */
export function hostMatches(pattern: string, host: string, port: string): boolean {
  return grantMatchesHost(parseHostGrant(pattern), host, port);
}

interface Pinned {
  address: string;
  family: 4 | 6;
}

/** Decides one hop and returns the address to connect to; throws what the model should read. */
export async function checkHop(
  url: URL,
  scope: NetworkScope,
  allowPrivate: boolean,
  resolve: (host: string) => Promise<string[]> = resolveAll,
): Promise<Pinned> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolError(`only http and https URLs can be fetched, not ${url.protocol}`);
  }
  if (scope.mode === 'deny')
    throw new ToolError(
      'network access is denied by the sandbox (CKP -32010)',
      CKP_ERRORS.sandboxDenied,
    );
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const grants = scope.allowedHosts.map(parseHostGrant);
  if (scope.mode === 'allowlist' && !grants.some((grant) => grantMatchesHost(grant, host, port)))
    throw new ToolError(
      `${host} is not in the sandbox's allowed hosts (CKP -32010)`,
      CKP_ERRORS.sandboxDenied,
    );
  const addresses = isIP(host) ? [host] : await resolve(host);
  if (addresses.length === 0) throw new ToolError(`cannot resolve ${host}`);
  if (!allowPrivate) {
    const internal = addresses.find(
      (address) =>
        isPrivateAddress(address) &&
        !grants.some((grant) => grantCoversAddress(grant, address, port)),
    );
    if (internal)
      throw new ToolError(`${host} resolves to an internal address (${internal}); refused`);
  }
  // IPv4 first: a host with an AAAA record is not always reachable over IPv6 from here.
  const address = addresses.find((a) => isIP(a) === 4) ?? (addresses[0] as string);
  return { address, family: isIP(address) === 6 ? 6 : 4 };
}

async function resolveAll(host: string): Promise<string[]> {
  const found = await lookup(host, { all: true }).catch(() => []);
  return found.map((entry) => entry.address);
}

export function pinnedLookup(pinned: Pinned): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  }) as LookupFunction;
}

function get(url: URL, pinned: Pinned, signal: AbortSignal): Promise<IncomingMessage> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.get(url, {
      lookup: pinnedLookup(pinned),
      signal,
      headers: { 'user-agent': 'Pincer', accept: '*/*', 'accept-encoding': 'identity' },
    });
    request.on('response', resolve);
    request.on('error', reject);
  });
}

async function readCapped(
  response: IncomingMessage,
  max: number,
): Promise<{ body: string; cut: boolean }> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) {
      parts.push(chunk.subarray(0, chunk.length - (size - max)));
      response.destroy();
      return { body: Buffer.concat(parts).toString('utf8'), cut: true };
    }
    parts.push(chunk);
  }
  return { body: Buffer.concat(parts).toString('utf8'), cut: false };
}

export const netFetch: Tool = {
  name: 'net/fetch',
  description: 'Fetch a web page or file over HTTP(S) with GET and return its text (capped).',
  inputSchema: {
    type: 'object',
    properties: {
      url: { type: 'string', format: 'uri' },
      max_bytes: { type: 'integer', minimum: 1, maximum: 5242880 },
    },
    required: ['url'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, openWorldHint: true },
  category: 'network',
  tier: 'safe',
  timeoutMs: 30_000,
  maxOutputBytes: 512 * 1024,
  source: 'builtin',
  async run(input, context: ToolContext) {
    const max = (input.max_bytes as number | undefined) ?? 1024 * 1024;
    const scope = context.network ?? PUBLIC_ONLY;
    const allowPrivate = context.allowPrivateNetwork === true || !scope.blockPrivate;
    let url = new URL(input.url as string);
    for (let hop = 0; hop <= MAX_HOPS; hop++) {
      const pinned = await checkHop(url, scope, allowPrivate);
      const response = await get(url, pinned, context.signal).catch((error: Error) => {
        throw new ToolError(`cannot fetch ${url.origin}: ${error.message}`);
      });
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (status >= 300 && status < 400 && location) {
        response.destroy();
        url = new URL(location, url);
        continue;
      }
      const { body, cut } = await readCapped(response, max);
      const head = `HTTP ${status} ${response.headers['content-type'] ?? ''}`.trim();
      return {
        content: `${head}\n\n${body}${cut ? `\n[cut at ${max} bytes]` : ''}`,
        isError: status < 200 || status >= 300,
      };
    }
    throw new ToolError('too many redirects');
  },
};
