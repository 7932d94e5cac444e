/**
 * Entries of the Sandbox's `network.allowed_hosts` (003 §5.7): a host name (`api.example.com`),
 * a subdomain wildcard (`*.example.com`) or an IP literal (`127.0.0.1`, `[::1]`), each with an
 * optional port (`:8080`).
 *
 * Names and wildcards only narrow where a tool may go: they never make an internal address
 * reachable, whatever they resolve to. Only an IP-literal entry (an address grant) does, for
 * that address (in any spelling) and, when it names one, that port.
 */
import { isIP } from 'node:net';
import { addressKey } from './address.js';

export interface HostGrant {
  /** Lower-case host name, `*.domain` or IP literal without brackets. */
  name: string;
  port?: string;
  /** Set for an address grant: the address's spelling-independent key. */
  address?: string;
}

export function parseHostGrant(entry: string): HostGrant {
  const normalized = entry.trim().toLowerCase();
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(normalized);
  const [name, port] = bracketed
    ? [bracketed[1] as string, bracketed[2]]
    : isIP(normalized) === 6
      ? [normalized, undefined]
      : (normalized.split(/:(?=\d+$)/) as [string, string | undefined]);
  const address = addressKey(name);
  return { name, ...(port !== undefined ? { port } : {}), ...(address ? { address } : {}) };
}

/** Whether the grant names this URL host (and port): the allowlist's narrowing. */
export function grantMatchesHost(grant: HostGrant, host: string, port: string): boolean {
  if (grant.port !== undefined && grant.port !== port) return false;
  if (grant.address) return grant.address === addressKey(host);
  const lowerHost = host.toLowerCase();
  if (grant.name.startsWith('*.'))
    return lowerHost.endsWith(grant.name.slice(1)) && lowerHost !== grant.name.slice(2);
  return grant.name === lowerHost;
}

/** Whether the grant makes this resolved (possibly internal) address reachable on this port. */
export function grantCoversAddress(grant: HostGrant, address: string, port: string): boolean {
  if (!grant.address || (grant.port !== undefined && grant.port !== port)) return false;
  return grant.address === addressKey(address);
}
