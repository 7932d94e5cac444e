import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
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
