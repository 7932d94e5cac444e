/** The secrets module's contract: one interface over several storage backends. */
import { type ErrorCategory, PincerError } from '../errors.js';

export type BackendId = 'keychain' | 'safe-storage' | 'vault' | 'env';

/** Whether a backend can be used here and, when not, a human reason (shown by doctor/CLI). */
export type Availability =
  | { available: true; detail?: string }
  | { available: false; reason: string };

export interface SecretBackend {
  readonly id: BackendId;
  /** Human name, e.g. "OS keychain (Secret Service)". */
  readonly label: string;
  /** Environment variables are read-only; every other backend is writable. */
  readonly writable: boolean;
  availability(): Promise<Availability>;
  get(name: string): Promise<string | undefined>;
  set(name: string, value: string): Promise<void>;
  /** True when something was deleted. */
  delete(name: string): Promise<boolean>;
  list(): Promise<string[]>;
  /** Drops cached key material (zeroed). */
  close?(): void;
}

/**
 * Turns text into opaque bytes and back with a key the OS holds. Electron's safeStorage is
 * adapted to this in src/main/app/safe-storage.ts: core may not import electron.
 */
export interface StringEncryptor {
  isEncryptionAvailable(): boolean;
  /** e.g. "gnome_libsecret", "kwallet5", "basic_text", "keychain", "dpapi". */
  backend(): string;
  encrypt(text: string): Buffer;
  decrypt(data: Buffer): string;
}

/** Names are env-var-like so a `secret_ref` and an environment variable can share one. */
const NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/;

export function isValidSecretName(name: string): boolean {
  return NAME.test(name);
}

export function assertValidSecretName(name: string): void {
  if (!isValidSecretName(name)) {
    throw new SecretsError(
      'invalid-name',
      `invalid secret name ${JSON.stringify(name.slice(0, 64))}: use letters, digits, _ . - (start with a letter or _)`,
    );
  }
}

export type SecretsErrorCode =
  | 'invalid-name'
  | 'unavailable'
  | 'read-only'
  | 'no-passphrase'
  | 'wrong-passphrase'
  | 'tampered'
  | 'truncated'
  | 'not-a-vault'
  | 'unsupported-version'
  | 'lock-timeout'
  | 'migration-failed';

const CATEGORY: Record<SecretsErrorCode, ErrorCategory> = {
  'invalid-name': 'invalid_request',
  unavailable: 'unavailable',
  'read-only': 'denied',
  'no-passphrase': 'unauthenticated',
  'wrong-passphrase': 'unauthenticated',
  tampered: 'internal',
  truncated: 'internal',
  'not-a-vault': 'invalid_request',
  'unsupported-version': 'unsupported',
  'lock-timeout': 'timeout',
  'migration-failed': 'internal',
};

/** Every failure of this module; messages never contain a secret value. */
export class SecretsError extends PincerError {
  override readonly name: string = 'SecretsError';
  constructor(
    readonly code: SecretsErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(CATEGORY[code], message, options);
  }
}

/** A vault file could not be opened: wrong key, tampering, truncation, unknown format. */
export class VaultError extends SecretsError {
  override readonly name: string = 'VaultError';
}
