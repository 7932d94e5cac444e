import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../../src/main/core/network/address.js';
import { checkHop, hostMatches } from '../../../src/main/core/tools/builtins/net.js';

describe('address classification', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fe80::1%eth0',
    'fd00::1',
    'fc00::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '64:ff9b::10.0.0.1',
    '[::1]',
    'not-an-ip',
    // IPv4 carried in IPv6, dotted and hex: compatible, mapped, SIIT, NAT64, 6to4, Teredo.
    '::127.0.0.1',
    '[::127.0.0.1]',
    '::7f00:1',
    '::ffff:0:127.0.0.1',
    '[::ffff:0:127.0.0.1]',
    '::ffff:0:7f00:1',
    '0:0:0:0:0:ffff:169.254.169.254',
    '64:ff9b::169.254.169.254',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b::7f00:1',
    '64:ff9b:1::1.1.1.1',
    '2002:7f00:1::1',
    '2002:a9fe:a9fe::',
    '2001:0:4136:e378:8000:63bf:80ff:fffe', // Teredo, client 127.0.0.1
    '2001:0:a00:1:8000:63bf:fefe:fefe', // Teredo via server 10.0.0.1
    // Metadata, documentation, SRv6, multicast and unassigned IPv6.
    'fd00:ec2::254',
    '2001:db8::1',
    '3fff::1',
    '5f00::1',
    'ff02::1',
    '4000::1',
    '100::1',
    '192.88.99.1',
    '255.255.255.255',
  ])('%s is private', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    '93.184.216.34',
    '1.1.1.1',
    '172.32.0.1',
    '2606:4700:4700::1111',
    '::ffff:1.1.1.1',
    '64:ff9b::1.1.1.1',
    '2002:101:101::1',
    '2001:0:4136:e378:8000:63bf:fefe:fefe', // Teredo, client 1.1.1.1
  ])('%s is public', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });
});

describe('allowed host patterns', () => {
  it('matches names, ports, subdomain wildcards and IPv6 literals', () => {
    expect(hostMatches('api.example.com', 'api.example.com', '443')).toBe(true);
    expect(hostMatches('API.example.com', 'api.example.com', '443')).toBe(true);
    expect(hostMatches('api.example.com', 'evil-api.example.com', '443')).toBe(false);
    expect(hostMatches('*.example.com', 'a.b.example.com', '443')).toBe(true);
    expect(hostMatches('*.example.com', 'example.com', '443')).toBe(false);
    expect(hostMatches('*.example.com', 'example.com.evil.net', '443')).toBe(false);
    expect(hostMatches('127.0.0.1:8080', '127.0.0.1', '8080')).toBe(true);
    expect(hostMatches('127.0.0.1:8080', '127.0.0.1', '8081')).toBe(false);
    expect(hostMatches('[::1]:3000', '::1', '3000')).toBe(true);
    expect(hostMatches('::1', '::1', '3000')).toBe(true);
    // An IP literal matches its address in any spelling.
    expect(hostMatches('127.0.0.1:8080', '::ffff:7f00:1', '8080')).toBe(true);
    expect(hostMatches('[0:0::1]', '::1', '80')).toBe(true);
  });
});

describe('one hop of net/fetch', () => {
  const dns = (table: Record<string, string[]>) => async (host: string) => table[host] ?? [];
  const scope = { mode: 'allow-all' as const, allowedHosts: [] as string[], blockPrivate: true };
  const resolve = dns({
    'evil.example': ['10.0.0.5'],
    'rebind.example': ['93.184.216.34', '127.0.0.1'],
    'api.example.com': ['2606:4700::1', '93.184.216.34'],
  });

  it('refuses a name whose DNS answer holds any private address, and unresolvable names', async () => {
    await expect(checkHop(new URL('http://evil.example/'), scope, false, resolve)).rejects.toThrow(
      /evil\.example resolves to an internal address \(10\.0\.0\.5\)/,
    );
    await expect(
      checkHop(new URL('http://rebind.example/'), scope, false, resolve),
    ).rejects.toThrow(/internal address \(127\.0\.0\.1\)/);
    await expect(
      checkHop(new URL('http://nowhere.example/'), scope, false, resolve),
    ).rejects.toThrow(/cannot resolve/);
  });

  it('pins the checked address (IPv4 first) for the connection', async () => {
    expect(await checkHop(new URL('https://api.example.com/'), scope, false, resolve)).toEqual({
      address: '93.184.216.34',
      family: 4,
    });
  });

  it('deny refuses, allowlist admits only listed hosts; a private address needs an address grant', async () => {
    await expect(
      checkHop(new URL('https://api.example.com/'), { ...scope, mode: 'deny' }, false, resolve),
    ).rejects.toThrow(/-32010/);
    const allowlist = {
      mode: 'allowlist' as const,
      allowedHosts: ['*.example.com', 'evil.example:8080'],
      blockPrivate: true,
    };
    await expect(
      checkHop(new URL('https://rebind.example/'), allowlist, false, resolve),
    ).rejects.toThrow(/not in the sandbox's allowed hosts/);
    expect(
      (await checkHop(new URL('https://api.example.com/'), allowlist, false, resolve)).address,
    ).toBe('93.184.216.34');
    // The name is listed, but what it resolves to is internal: a name never grants that.
    await expect(
      checkHop(new URL('http://evil.example:8080/'), allowlist, false, resolve),
    ).rejects.toThrow(/internal address \(10\.0\.0\.5\)/);
    const withAddress = {
      ...allowlist,
      allowedHosts: [...allowlist.allowedHosts, '10.0.0.5:8080'],
    };
    expect(
      (await checkHop(new URL('http://evil.example:8080/'), withAddress, false, resolve)).address,
    ).toBe('10.0.0.5');
    await expect(
      checkHop(new URL('http://evil.example:9090/'), withAddress, false, resolve),
    ).rejects.toThrow();
  });

  it('a wildcard or a name that resolves to loopback or metadata is refused, in any mode', async () => {
    const names = dns({
      'metadata.example.com': ['169.254.169.254'],
      'home.example.com': ['::ffff:127.0.0.1'],
      'six.example.com': ['64:ff9b::a9fe:a9fe'],
    });
    for (const mode of ['allowlist', 'allow-all'] as const) {
      const wide = {
        mode,
        allowedHosts: ['*.example.com', 'metadata.example.com'],
        blockPrivate: true,
      };
      for (const host of ['metadata.example.com', 'home.example.com', 'six.example.com']) {
        await expect(
          checkHop(new URL(`http://${host}/`), wide, false, names),
          `${mode} ${host}`,
        ).rejects.toThrow(/internal address/);
      }
    }
    // block_private_ips: false (or a test's allowPrivate) is the one switch that turns it off.
    const off = { mode: 'allowlist' as const, allowedHosts: ['*.example.com'], blockPrivate: true };
    expect(
      (await checkHop(new URL('http://metadata.example.com/'), off, true, names)).address,
    ).toBe('169.254.169.254');
  });

  it('refuses schemes other than http and https', async () => {
    await expect(checkHop(new URL('file:///etc/passwd'), scope, false, resolve)).rejects.toThrow(
      /only http and https/,
    );
  });
});
