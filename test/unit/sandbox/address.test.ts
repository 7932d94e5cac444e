import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../../src/main/core/sandbox/address.js';
import { hostMatches } from '../../../src/main/core/tools/builtins/net.js';

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
