import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  randomBytes,
  scrypt,
  timingSafeEqual,
} from 'node:crypto';
import type { StringEncryptor } from './types.js';
import { VaultError } from './types.js';
import { zero } from './zero.js';

/** Turns a vault's plaintext (JSON bytes) into file bytes and back. */
export interface VaultCodec {
  seal(plain: Buffer): Promise<Buffer>;
  /** Throws VaultError (wrong-passphrase, tampered, truncated, ...) and nothing else. */
  open(file: Buffer): Promise<Buffer>;
  /** Drops any cached key material. */
  close(): void;
}

export interface ScryptParams {
  /** log2 of the scrypt cost N. */
  log2N: number;
  r: number;
  p: number;
}

/** OWASP's scrypt recommendation (N=2^17, r=8, p=1): ~128 MiB and a few hundred ms per unlock. */
export const DEFAULT_SCRYPT: ScryptParams = { log2N: 17, r: 8, p: 1 };

/*
 * Passphrase vault file, version 1 (all integers big-endian):
 *   0  magic "PINCERVT"     8  version (1)   9  kdf (1 = scrypt)   10 log2N   11 r   12 p
 *   13 reserved (0)         14 salt (16)     30 nonce (12)         42 key check (16)
 *   58 ciphertext length (u32)              62 ciphertext          end: GCM tag (16)
 * The whole header (0..62) is GCM additional data, so no header byte can change unnoticed.
 * The key check (an HMAC of a constant under a second derived key) tells a wrong passphrase
 * apart from tampering without decrypting anything.
 */
const MAGIC = Buffer.from('PINCERVT', 'ascii');
const VERSION = 1;
const KDF_SCRYPT = 1;
const HEADER_LEN = 62;
const TAG_LEN = 16;
const KEY_CHECK_LABEL = 'pincer-vault-key-check-v1';

type PassphraseSource = () => Promise<string | undefined>;

export class PassphraseCodec implements VaultCodec {
  /** Derived keys by salt, so one unlock serves every read and write of this process. */
  private readonly keys = new Map<string, Buffer>();
  private lastSalt: Buffer | null = null;
  private lastParams: ScryptParams;

  constructor(
    private readonly passphrase: PassphraseSource,
    private readonly params: ScryptParams = DEFAULT_SCRYPT,
  ) {
    this.lastParams = params;
  }

  async seal(plain: Buffer): Promise<Buffer> {
    // Reuse the salt of the file we last opened: no second scrypt, same passphrase.
    const salt = this.lastSalt ?? randomBytes(16);
    const params = this.lastSalt ? this.lastParams : this.params;
    const key = await this.derive(salt, params);
    const header = Buffer.alloc(HEADER_LEN);
    MAGIC.copy(header, 0);
    header.writeUInt8(VERSION, 8);
    header.writeUInt8(KDF_SCRYPT, 9);
    header.writeUInt8(params.log2N, 10);
    header.writeUInt8(params.r, 11);
    header.writeUInt8(params.p, 12);
    salt.copy(header, 14);
    randomBytes(12).copy(header, 30);
    keyCheck(key).copy(header, 42);
    header.writeUInt32BE(plain.length, 58);
    const cipher = createCipheriv('aes-256-gcm', key.subarray(0, 32), header.subarray(30, 42));
    cipher.setAAD(header);
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    this.lastSalt = salt;
    this.lastParams = params;
    return Buffer.concat([header, body, cipher.getAuthTag()]);
  }

  async open(file: Buffer): Promise<Buffer> {
    if (file.length < MAGIC.length) {
      throw MAGIC.subarray(0, file.length).equals(file)
        ? new VaultError('truncated', 'the vault file is truncated (shorter than its header)')
        : new VaultError('not-a-vault', 'this file is not a Pincer vault');
    }
    if (!file.subarray(0, MAGIC.length).equals(MAGIC)) {
      throw new VaultError('not-a-vault', 'this file is not a Pincer vault (bad magic)');
    }
    if (file.length < HEADER_LEN) {
      throw new VaultError('truncated', 'the vault file is truncated (shorter than its header)');
    }
    const version = file.readUInt8(8);
    if (version !== VERSION) {
      throw new VaultError(
        'unsupported-version',
        `vault format version ${version} is not supported (this Pincer reads version ${VERSION})`,
      );
    }
    const params: ScryptParams = {
      log2N: file.readUInt8(10),
      r: file.readUInt8(11),
      p: file.readUInt8(12),
    };
    if (file.readUInt8(9) !== KDF_SCRYPT || !saneParams(params)) {
      throw new VaultError(
        'tampered',
        'the vault header is corrupt (unknown key derivation parameters)',
      );
    }
    const length = file.readUInt32BE(58);
    const expected = HEADER_LEN + length + TAG_LEN;
    if (file.length < expected) {
      throw new VaultError(
        'truncated',
        `the vault file is truncated (${file.length} of ${expected} bytes)`,
      );
    }
    if (file.length > expected) {
      throw new VaultError('tampered', 'the vault file has trailing bytes: it was altered');
    }
    const header = file.subarray(0, HEADER_LEN);
    const salt = Buffer.from(header.subarray(14, 30));
    const key = await this.derive(salt, params);
    if (!timingSafeEqual(keyCheck(key), header.subarray(42, 58))) {
      this.forget(salt);
      throw new VaultError(
        'wrong-passphrase',
        'wrong vault passphrase (or the vault header was altered)',
      );
    }
    const decipher = createDecipheriv('aes-256-gcm', key.subarray(0, 32), header.subarray(30, 42));
    decipher.setAAD(header);
    decipher.setAuthTag(file.subarray(expected - TAG_LEN));
    const out = decipher.update(file.subarray(HEADER_LEN, expected - TAG_LEN));
    try {
      const last = decipher.final();
      this.lastSalt = salt;
      this.lastParams = params;
      return last.length ? Buffer.concat([out, last]) : out;
    } catch (cause) {
      zero(out);
      throw new VaultError(
        'tampered',
        'the vault failed authentication: it was altered or corrupted',
        { cause },
      );
    }
  }

  close(): void {
    for (const key of this.keys.values()) zero(key);
    this.keys.clear();
    this.lastSalt = null;
  }

  private forget(salt: Buffer): void {
    const id = salt.toString('hex');
    zero(this.keys.get(id));
    this.keys.delete(id);
  }

  private async derive(salt: Buffer, params: ScryptParams): Promise<Buffer> {
    const id = salt.toString('hex');
    const cached = this.keys.get(id);
    if (cached) return cached;
    const passphrase = await this.passphrase();
    if (!passphrase) {
      throw new VaultError(
        'no-passphrase',
        'the vault needs a passphrase: set PINCER_VAULT_PASSPHRASE or run on a terminal',
      );
    }
    const secret = Buffer.from(passphrase, 'utf8');
    try {
      const N = 2 ** params.log2N;
      // 64 bytes: the AES-256 key, then the key-check HMAC key.
      const key = await new Promise<Buffer>((resolve, reject) =>
        scrypt(
          secret,
          salt,
          64,
          { N, r: params.r, p: params.p, maxmem: 256 * N * params.r + (1 << 20) },
          (error, derived) => (error ? reject(error) : resolve(derived)),
        ),
      );
      this.keys.set(id, key);
      return key;
    } finally {
      zero(secret);
    }
  }
}

function keyCheck(key: Buffer): Buffer {
  return createHmac('sha256', key.subarray(32)).update(KEY_CHECK_LABEL).digest().subarray(0, 16);
}

function saneParams({ log2N, r, p }: ScryptParams): boolean {
  return log2N >= 10 && log2N <= 22 && r >= 1 && r <= 32 && p >= 1 && p <= 16;
}

/*
 * safeStorage vault file: magic "PINCERSS", version (1), then the encryptor's output. The key
 * lives in the OS keyring (via Electron); integrity is whatever the platform's scheme gives,
 * and anything that fails to decrypt or parse is reported as tampered.
 */
const SS_MAGIC = Buffer.from('PINCERSS', 'ascii');

export class EncryptorCodec implements VaultCodec {
  constructor(private readonly encryptor: StringEncryptor) {}

  async seal(plain: Buffer): Promise<Buffer> {
    const sealed = this.encryptor.encrypt(plain.toString('utf8'));
    return Buffer.concat([SS_MAGIC, Buffer.from([VERSION]), sealed]);
  }

  async open(file: Buffer): Promise<Buffer> {
    if (file.length <= SS_MAGIC.length) {
      throw new VaultError('truncated', 'the safeStorage vault file is truncated');
    }
    if (!file.subarray(0, SS_MAGIC.length).equals(SS_MAGIC)) {
      throw new VaultError('not-a-vault', 'this file is not a Pincer safeStorage vault');
    }
    const version = file.readUInt8(SS_MAGIC.length);
    if (version !== VERSION) {
      throw new VaultError(
        'unsupported-version',
        `safeStorage vault version ${version} is not supported`,
      );
    }
    try {
      return Buffer.from(this.encryptor.decrypt(file.subarray(SS_MAGIC.length + 1)), 'utf8');
    } catch (cause) {
      throw new VaultError(
        'tampered',
        'the safeStorage vault could not be decrypted: altered, or made under another OS key',
        { cause },
      );
    }
  }

  close(): void {}
}
