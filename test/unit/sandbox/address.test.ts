import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../../src/main/core/sandbox/address.js';
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
  ])('%s is private', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each(['93.184.216.34', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:1.1.1.1'])(
    '%s is public',
    (address) => {
      expect(isPrivateAddress(address)).toBe(false);
    },
  );
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

  it('deny refuses, allowlist admits only listed hosts; a listed private host:port is granted', async () => {
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
    expect(
      (await checkHop(new URL('http://evil.example:8080/'), allowlist, false, resolve)).address,
    ).toBe('10.0.0.5');
    await expect(
      checkHop(new URL('http://evil.example:9090/'), allowlist, false, resolve),
    ).rejects.toThrow();
  });

  it('refuses schemes other than http and https', async () => {
    await expect(checkHop(new URL('file:///etc/passwd'), scope, false, resolve)).rejects.toThrow(
      /only http and https/,
    );
  });
});
