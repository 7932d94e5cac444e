import { safeStorage } from 'electron';
import type { StringEncryptor } from '../core/secrets/index.js';

/** Set to 1 to accept Linux's "basic_text" safeStorage backend (a hardcoded key: obfuscation only). */
export const ALLOW_BASIC_TEXT_ENV = 'PINCER_ALLOW_BASIC_TEXT';

/**
 * Electron's safeStorage as the core's StringEncryptor (core may not import electron). On Linux,
 * "basic_text" means no keyring was found and Chromium would use a fixed key: that is refused
 * (reported unavailable) unless the user explicitly allows it.
 * Call only after app 'ready': safeStorage is not usable before.
 */
export function safeStorageEncryptor(options: { allowBasicText?: boolean } = {}): StringEncryptor {
  const allowBasicText = options.allowBasicText ?? process.env[ALLOW_BASIC_TEXT_ENV] === '1';
  const backend = (): string =>
    process.platform === 'linux' ? safeStorage.getSelectedStorageBackend() : platformBackend();
  return {
    backend,
    isEncryptionAvailable: () => {
      if (!safeStorage.isEncryptionAvailable()) return false;
      return !(process.platform === 'linux' && backend() === 'basic_text' && !allowBasicText);
    },
    encrypt: (text) => safeStorage.encryptString(text),
    decrypt: (data) => safeStorage.decryptString(data),
  };
}

function platformBackend(): string {
  return process.platform === 'darwin'
    ? 'keychain'
    : process.platform === 'win32'
      ? 'dpapi'
      : 'unknown';
}
