/**
 * Which IP addresses a network tool may reach without an explicit address grant: not loopback,
 * not private (RFC 1918, CGNAT, ULA), not link-local (169.254/16 and fd00:ec2::254 hold cloud
 * metadata services), not multicast, documentation or reserved.
 *
 * Addresses are parsed to their bytes, so every spelling of one address is classified alike;
 * an IPv6 address that carries an IPv4 one (compatible, mapped, SIIT, NAT64, 6to4, Teredo) is
 * classified by the IPv4 address it carries. Of IPv6 only global unicast (2000::/3) can be
 * public at all.
 */
import { BlockList, isIP } from 'node:net';

const BLOCKED_V4 = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED_V4.addSubnet(net, bits, 'ipv4');
}

/** Special-purpose blocks inside 2000::/3 (the embedding prefixes are classified before). */
const BLOCKED_V6 = new BlockList();
for (const [net, bits] of [
  ['2001::', 23],
  ['2001:db8::', 32],
  ['3fff::', 20],
  ['5f00::', 16],
] as const) {
  BLOCKED_V6.addSubnet(net, bits, 'ipv6');
}

/** The bytes of an IP literal (4 for IPv4, 16 for IPv6); undefined for anything else. */
export function addressBytes(text: string): Uint8Array | undefined {
  const bare = text.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return Uint8Array.from(bare.split('.'), Number);
  if (family !== 6) return undefined;
  // A trailing dotted quad is two more 16-bit groups.
  const hex = bare.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a, b, c, d) =>
    [(Number(a) << 8) | Number(b), (Number(c) << 8) | Number(d)]
      .map((n) => n.toString(16))
      .join(':'),
  );
  const [head = '', tail] = hex.split('::');
  const groupsOf = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groupsOf(head);
  const right = tail === undefined ? [] : groupsOf(tail);
  const groups = [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  const bytes = new Uint8Array(16);
  groups.forEach((group: string, i) => {
    const value = Number.parseInt(group, 16);
    bytes[2 * i] = value >> 8;
    bytes[2 * i + 1] = value & 255;
  });
  return bytes;
}

/** One key per address, whatever its spelling: IPv4 keyed as its IPv4-mapped IPv6 form. */
export function addressKey(text: string): string | undefined {
  const bytes = addressBytes(text);
  if (!bytes) return undefined;
  const full =
    bytes.length === 4 ? Uint8Array.from([...Array(10).fill(0), 255, 255, ...bytes]) : bytes;
  return Buffer.from(full).toString('hex');
}

const dotted = (bytes: Uint8Array) => bytes.join('.');
const isPrivateV4 = (bytes: Uint8Array) => BLOCKED_V4.check(dotted(bytes), 'ipv4');

/** The IPv4 addresses an IPv6 address carries (Teredo carries two), or none. */
function carriedIpv4(b: Uint8Array): Uint8Array[] {
  const zero = (from: number, to: number) => b.subarray(from, to).every((x) => x === 0);
  const word = (i: number) => ((b[i] as number) << 8) | (b[i + 1] as number);
  const last = b.slice(12, 16);
  // ::a.b.c.d (compatible, also :: and ::1) and ::ffff:a.b.c.d (mapped)
  if (zero(0, 10) && (word(10) === 0 || word(10) === 0xffff)) return [last];
  // ::ffff:0:a.b.c.d (SIIT)
  if (zero(0, 8) && word(8) === 0xffff && word(10) === 0) return [last];
  // 64:ff9b::a.b.c.d (NAT64 well-known prefix)
  if (word(0) === 0x64 && word(2) === 0xff9b && zero(4, 12)) return [last];
  // 2002:aabb:ccdd::/48 (6to4)
  if (word(0) === 0x2002) return [b.slice(2, 6)];
  // 2001:0:<server>:<flags>:<port>:<client XOR ff> (Teredo)
  if (word(0) === 0x2001 && word(2) === 0) return [b.slice(4, 8), last.map((x) => x ^ 255)];
  return [];
}

/** True for every address that is not plainly public; anything unparseable counts as private. */
export function isPrivateAddress(address: string): boolean {
  const bytes = addressBytes(address);
  if (!bytes) return true;
  if (bytes.length === 4) return isPrivateV4(bytes);
  const carried = carriedIpv4(bytes);
  if (carried.length > 0) return carried.some(isPrivateV4);
  // Outside global unicast: loopback, ULA (fc00::/7), link-local, multicast, NAT64 local-use
  // (64:ff9b:1::/48), discard and the unassigned rest.
  if (((bytes[0] as number) & 0xe0) !== 0x20) return true;
  const groups = Array.from({ length: 8 }, (_, i) =>
    (((bytes[2 * i] as number) << 8) | (bytes[2 * i + 1] as number)).toString(16),
  );
  return BLOCKED_V6.check(groups.join(':'), 'ipv6');
}
