/**
 * The credentials store. `createSecretStore` assembles the backend chain for this
 * process: OS keychain (keytar) -> safeStorage vault (Electron only, encryptor injected by
 * src/main/app) -> passphrase vault (AES-256-GCM, scrypt) -> environment variables.
 */
import path from 'node:path';
import { CONVENTIONAL_ENV } from '../models/index.js';
import { EnvBackend } from './env.js';
import { KeychainBackend, type KeychainOptions } from './keychain.js';
import { SecretStore } from './store.js';
import type { Availability, SecretBackend, StringEncryptor } from './types.js';
import { VaultBackend } from './vault.js';
import { EncryptorCodec, PassphraseCodec, type ScryptParams } from './vault-codec.js';

export { loadKnownSecrets } from './known.js';

export { SecretStore } from './store.js';
export { type BackendId, SecretsError, type StringEncryptor } from './types.js';

export const PASSPHRASE_ENV = 'PINCER_VAULT_PASSPHRASE';
/** Set to "off" to skip the OS keychain (containers, tests that must not touch a real one). */
export const KEYCHAIN_ENV = 'PINCER_KEYCHAIN';
/** Overrides the keychain service name ("Pincer"): lets tests use a throwaway entry set. */
export const KEYCHAIN_SERVICE_ENV = 'PINCER_KEYCHAIN_SERVICE';

export function secretsDir(dataDir: string): string {
  return path.join(dataDir, 'secrets');
}
export function vaultPath(dataDir: string): string {
  return path.join(secretsDir(dataDir), 'vault.pincer');
}
export function safeStorageVaultPath(dataDir: string): string {
  return path.join(secretsDir(dataDir), 'safe-storage.pincer');
}

export interface SecretStoreOptions {
  dataDir: string;
  env?: Record<string, string | undefined>;
  /** Electron's safeStorage, adapted (only the desktop shell has one). */
  encryptor?: StringEncryptor;
  /** Asks the user for the vault passphrase (a hidden terminal prompt); absent when headless. */
  promptPassphrase?: () => Promise<string | undefined>;
  keychain?: KeychainOptions;
  /** Test seam: cheaper scrypt parameters. */
  scrypt?: ScryptParams;
}

export function createSecretStore(options: SecretStoreOptions): SecretStore {
  const env = options.env ?? process.env;
  const backends: SecretBackend[] = [];
  if (env[KEYCHAIN_ENV]?.toLowerCase() !== 'off') {
    const service = env[KEYCHAIN_SERVICE_ENV]?.trim() || undefined;
    backends.push(new KeychainBackend({ service, ...options.keychain }));
  }
  if (options.encryptor) backends.push(safeStorageVault(options.dataDir, options.encryptor));
  backends.push(passphraseVault(options.dataDir, env, options.promptPassphrase, options.scrypt));
  backends.push(new EnvBackend(env, Object.values(CONVENTIONAL_ENV)));
  return new SecretStore(backends);
}

export function safeStorageVault(dataDir: string, encryptor: StringEncryptor): VaultBackend {
  return new VaultBackend({
    id: 'safe-storage',
    label: `safeStorage vault (${encryptor.backend()})`,
    file: safeStorageVaultPath(dataDir),
    codec: new EncryptorCodec(encryptor),
    availability: async (): Promise<Availability> =>
      encryptor.isEncryptionAvailable()
        ? {
            available: true,
            detail: `encrypted by the OS through safeStorage (${encryptor.backend()})`,
          }
        : {
            available: false,
            reason: `safeStorage encryption is unavailable (backend ${encryptor.backend()})`,
          },
  });
}

export function passphraseVault(
  dataDir: string,
  env: Record<string, string | undefined>,
  prompt?: () => Promise<string | undefined>,
  scrypt?: ScryptParams,
): VaultBackend {
  let asked: Promise<string | undefined> | null = null;
  const passphrase = async () => {
    const fromEnv = env[PASSPHRASE_ENV];
    if (fromEnv) return fromEnv;
    asked ??= prompt ? prompt() : Promise.resolve(undefined);
    return asked;
  };
  return new VaultBackend({
    id: 'vault',
    label: 'encrypted vault file (AES-256-GCM, passphrase)',
    file: vaultPath(dataDir),
    codec: new PassphraseCodec(passphrase, scrypt),
    availability: async (): Promise<Availability> => {
      if (env[PASSPHRASE_ENV])
        return { available: true, detail: `passphrase from ${PASSPHRASE_ENV}` };
      if (prompt) return { available: true, detail: 'passphrase asked on the terminal' };
      return {
        available: false,
        reason: `no passphrase: set ${PASSPHRASE_ENV} or run on a terminal`,
      };
    },
  });
}
export { writeFileAtomic } from './atomic.js';
