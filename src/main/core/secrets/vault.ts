import fs from 'node:fs/promises';
import path from 'node:path';
import { privateDir, privateFile } from '../storage/index.js';
import { type AtomicWriteOptions, writeFileAtomic } from './atomic.js';
import { type LockOptions, withFileLock } from './lock.js';
import type { Availability, BackendId, SecretBackend } from './types.js';
import { assertValidSecretName, VaultError } from './types.js';
import type { VaultCodec } from './vault-codec.js';
import { zero } from './zero.js';

export interface VaultBackendOptions {
  id: Extract<BackendId, 'vault' | 'safe-storage'>;
  label: string;
  file: string;
  codec: VaultCodec;
  /** Why this vault cannot be used right now (no passphrase, no OS encryption), if it cannot. */
  availability: () => Promise<Availability>;
  lock?: LockOptions;
  /** Test seam for the atomic write (see atomic.ts). */
  write?: AtomicWriteOptions;
}

interface VaultContents {
  v: 1;
  secrets: Record<string, string>;
}

/**
 * An encrypted file holding every secret as one JSON map. Reads need no lock (writes replace the
 * file atomically); writes re-read, modify and write under a lock file so concurrent writers
 * (CLI and app at once) never drop each other's values. A file that fails to open is never
 * overwritten: the write fails with the VaultError instead.
 */
export class VaultBackend implements SecretBackend {
  readonly id: VaultBackendOptions['id'];
  readonly label: string;
  readonly writable = true;
  readonly file: string;
  private tightened = false;

  constructor(private readonly options: VaultBackendOptions) {
    this.id = options.id;
    this.label = options.label;
    this.file = options.file;
  }

  availability(): Promise<Availability> {
    return this.options.availability();
  }

  /** Whether the vault file exists (it is created on the first write). */
  async exists(): Promise<boolean> {
    return fs.access(this.file).then(
      () => true,
      () => false,
    );
  }

  async get(name: string): Promise<string | undefined> {
    const secrets = await this.read();
    return Object.hasOwn(secrets, name) ? secrets[name] : undefined;
  }

  async list(): Promise<string[]> {
    return Object.keys(await this.read()).sort();
  }

  async set(name: string, value: string): Promise<void> {
    assertValidSecretName(name);
    await this.update((secrets) => {
      secrets[name] = value;
      return true;
    });
  }

  async delete(name: string): Promise<boolean> {
    let found = false;
    await this.update((secrets) => {
      found = Object.hasOwn(secrets, name);
      delete secrets[name];
      return found;
    });
    return found;
  }

  close(): void {
    this.options.codec.close();
  }

  private async update(change: (secrets: Record<string, string>) => boolean): Promise<void> {
    // Unlock (scrypt, the slow part) before taking the lock, so writers queue only for I/O.
    await this.read().catch(() => undefined);
    await withFileLock(
      `${this.file}.lock`,
      async () => {
        const secrets = await this.read();
        if (!change(secrets)) return;
        const plain = Buffer.from(
          JSON.stringify({ v: 1, secrets } satisfies VaultContents),
          'utf8',
        );
        try {
          const sealed = await this.options.codec.seal(plain);
          await writeFileAtomic(this.file, sealed, { mode: 0o600, ...this.options.write });
        } finally {
          zero(plain);
        }
      },
      this.options.lock,
    );
  }

  private async read(): Promise<Record<string, string>> {
    let raw: Buffer;
    try {
      raw = await fs.readFile(this.file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return Object.create(null);
      throw error;
    }
    if (!this.tightened) {
      // A vault an older version (or a loose umask) left readable by others is narrowed once.
      this.tightened = true;
      privateDir(path.dirname(this.file));
      privateFile(this.file);
    }
    const plain = await this.options.codec.open(raw);
    try {
      return parseContents(plain);
    } finally {
      zero(plain);
    }
  }
}

function parseContents(plain: Buffer): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(plain.toString('utf8'));
  } catch (cause) {
    throw new VaultError('tampered', 'the vault decrypted to something that is not a secrets map', {
      cause,
    });
  }
  const secrets = (parsed as Partial<VaultContents> | null)?.secrets;
  if (!secrets || typeof secrets !== 'object' || (parsed as VaultContents).v !== 1) {
    throw new VaultError('tampered', 'the vault decrypted to something that is not a secrets map');
  }
  const out: Record<string, string> = Object.create(null);
  for (const [key, value] of Object.entries(secrets))
    if (typeof value === 'string') out[key] = value;
  return out;
}
