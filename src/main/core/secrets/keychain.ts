import type { Availability, SecretBackend } from './types.js';
import { assertValidSecretName, SecretsError } from './types.js';

/** The part of keytar this module uses (keytar is an optional native dependency). */
export interface KeytarApi {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
  findCredentials(service: string): Promise<Array<{ account: string; password: string }>>;
}

export const KEYCHAIN_SERVICE = 'Pincer';

export type KeytarLoad = { keytar: KeytarApi } | { reason: string };

let loading: Promise<KeytarLoad> | null = null;

/** Loads keytar once; a missing module or a native load failure becomes a reason, not a throw. */
export function loadKeytar(): Promise<KeytarLoad> {
  loading ??= (async () => {
    try {
      const mod = (await import('keytar')) as { default?: KeytarApi } & Partial<KeytarApi>;
      const api = mod.default ?? (mod as KeytarApi);
      if (typeof api.findCredentials !== 'function')
        return { reason: 'keytar loaded but has no findCredentials' };
      return { keytar: api };
    } catch (error) {
      return {
        reason: `keytar is not installed or failed to load (it needs libsecret at install time): ${firstLine(error)}`,
      };
    }
  })();
  return loading;
}

export function keychainName(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return 'macOS Keychain';
  if (platform === 'win32') return 'Windows Credential Manager';
  return 'Secret Service';
}

export interface KeychainOptions {
  service?: string;
  /** How long the availability probe may take: a keyring that would prompt can hang. */
  probeTimeoutMs?: number;
  /** Injected for tests that need a fresh load; defaults to the shared loader. */
  load?: () => Promise<KeytarLoad>;
}

/**
 * Secrets in the OS keychain under service "Pincer", one entry per name. keytar's
 * findCredentials(service) is the index of names, so nothing else needs to be kept in sync.
 */
export class KeychainBackend implements SecretBackend {
  readonly id = 'keychain' as const;
  readonly label = `OS keychain (${keychainName()})`;
  readonly writable = true;
  private readonly service: string;
  private probed: Promise<Availability> | null = null;

  constructor(private readonly options: KeychainOptions = {}) {
    this.service = options.service ?? KEYCHAIN_SERVICE;
  }

  /** Probes for real once per instance: loads keytar and lists the service's entries. */
  availability(): Promise<Availability> {
    this.probed ??= (async (): Promise<Availability> => {
      const loaded = await (this.options.load ?? loadKeytar)();
      if ('reason' in loaded) return { available: false, reason: loaded.reason };
      try {
        await withTimeout(
          loaded.keytar.findCredentials(this.service),
          this.options.probeTimeoutMs ?? 5000,
        );
        return { available: true, detail: `keytar reached the ${keychainName()}` };
      } catch (error) {
        return {
          available: false,
          reason: `the ${keychainName()} is unavailable or locked: ${firstLine(error)}`,
        };
      }
    })();
    return this.probed;
  }

  async get(name: string): Promise<string | undefined> {
    const value = await (await this.api()).getPassword(this.service, name);
    return value ?? undefined;
  }

  async set(name: string, value: string): Promise<void> {
    assertValidSecretName(name);
    await (await this.api()).setPassword(this.service, name, value);
  }

  async delete(name: string): Promise<boolean> {
    return (await this.api()).deletePassword(this.service, name);
  }

  async list(): Promise<string[]> {
    const found = await (await this.api()).findCredentials(this.service);
    return found.map((entry) => entry.account).sort();
  }

  private async api(): Promise<KeytarApi> {
    const state = await this.availability();
    if (!state.available) throw new SecretsError('unavailable', state.reason);
    const loaded = await (this.options.load ?? loadKeytar)();
    if ('reason' in loaded) throw new SecretsError('unavailable', loaded.reason);
    return loaded.keytar;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] ?? text;
}
