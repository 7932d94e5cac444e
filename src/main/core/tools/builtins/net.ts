/**
 * net/fetch: an HTTP(S) GET with a size cap and a deadline. Every hop (redirects included) is
 * resolved first and refused when it lands on a loopback, private, link-local or otherwise
 * internal address, unless the context allows private networks: no SSRF into the LAN or the
 * cloud metadata service through a model that was talked into it.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { type Tool, ToolError } from '../types.js';

const BLOCKED = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED.addSubnet(net, bits, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  // An IPv4 address written as IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it is.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isPrivateAddress(mapped[1] as string);
  const family = isIP(address);
  if (family === 0) return true;
  return BLOCKED.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

async function checkHost(url: URL, allowPrivate: boolean): Promise<void> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolError(`only http and https URLs can be fetched, not ${url.protocol}`);
  }
  if (allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host)
    ? [host]
    : (await lookup(host, { all: true }).catch(() => [])).map((a) => a.address);
  if (addresses.length === 0) throw new ToolError(`cannot resolve ${host}`);
  const internal = addresses.find(isPrivateAddress);
  if (internal)
    throw new ToolError(`${host} resolves to an internal address (${internal}); refused`);
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
  async run(input, context) {
    const max = (input.max_bytes as number | undefined) ?? 1024 * 1024;
    let url = new URL(input.url as string);
    for (let hop = 0; hop <= 5; hop++) {
      await checkHost(url, context.allowPrivateNetwork === true);
      const response = await fetch(url, { redirect: 'manual', signal: context.signal }).catch(
        (error: Error) => {
          throw new ToolError(`cannot fetch ${url.origin}: ${error.message}`);
        },
      );
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel();
        url = new URL(location, url);
        continue;
      }
      const reader = response.body?.getReader();
      const parts: Uint8Array[] = [];
      let size = 0;
      let cut = false;
      while (reader) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > max) {
          parts.push(value.subarray(0, value.byteLength - (size - max)));
          cut = true;
          await reader.cancel();
          break;
        }
        parts.push(value);
      }
      const body = Buffer.concat(parts).toString('utf8');
      const head = `HTTP ${response.status} ${response.headers.get('content-type') ?? ''}`.trim();
      return {
        content: `${head}\n\n${body}${cut ? `\n[cut at ${max} bytes]` : ''}`,
        isError: !response.ok,
      };
    }
    throw new ToolError('too many redirects');
  },
};
