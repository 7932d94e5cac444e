import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import {
  createSecretStore,
  passphraseVault,
  SecretStore,
} from '../../src/main/core/secrets/index.js';
import type { StringEncryptor } from '../../src/main/core/secrets/types.js';
import type { ScryptParams } from '../../src/main/core/secrets/vault-codec.js';

/** Cheap scrypt for unit tests (the format records the parameters, so this is a real vault). */
export const FAST_SCRYPT: ScryptParams = { log2N: 10, r: 8, p: 1 };

/**
 * Stands in for Electron's safeStorage, which needs a running Electron app (not available
 * headless here): real AES-256-GCM with a per-instance random key, so a vault written with one
 * instance cannot be read with another, as with a different OS key.
 */
export function testEncryptor(key: Buffer = randomBytes(32), available = true): StringEncryptor {
  return {
    isEncryptionAvailable: () => available,
    backend: () => 'test_aes_gcm',
    encrypt(text) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]);
    },
    decrypt(data) {
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, 12));
      decipher.setAuthTag(data.subarray(12, 28));
      return Buffer.concat([decipher.update(data.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}

/**
 * Creates an empty passphrase vault with FAST_SCRYPT under `dataDir`. The file records its own
 * scrypt parameters and every later writer keeps them, so CLI processes started by a test unlock
 * it cheaply: with the default cost (about 128 MiB and a few hundred ms per unlock) several CLI
 * processes at once made tests slow enough on a busy 2-core machine to hit their timeouts, and
 * the cost is not what those tests check.
 */
export async function seedFastVault(dataDir: string, passphrase: string): Promise<void> {
  const env = { PINCER_VAULT_PASSPHRASE: passphrase };
  const store = new SecretStore([passphraseVault(dataDir, env, undefined, FAST_SCRYPT)]);
  await store.set('PINCER_TEST_SEED', 'seed-value');
  await store.delete('PINCER_TEST_SEED');
}

/**
 * The store a headless run builds (the OS keychain off, so a test never touches the user's),
 * over a passphrase vault in `dataDir` with FAST_SCRYPT. Opening another with the same dir and
 * passphrase reads what this one wrote, as a restarted process would.
 */
export function vaultSecrets(dataDir: string, passphrase = 'test'): SecretStore {
  return createSecretStore({
    dataDir,
    env: { PINCER_KEYCHAIN: 'off', PINCER_VAULT_PASSPHRASE: passphrase },
    scrypt: FAST_SCRYPT,
  });
}
