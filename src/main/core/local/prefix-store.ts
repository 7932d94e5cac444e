/**
 * Evaluated prompt prefixes on disk: node-llama-cpp sequence state files, so a new conversation
 * (or the first one after a restart) starts from the system prompt and tool definitions already
 * evaluated instead of reading them again.
 *
 * Each entry is `<model>-<prefix>.state` (the state file) and `<model>-<prefix>.json` (what it
 * was made from and the state file's sha256). `<model>` hashes the model file's identity and the
 * context settings, `<prefix>` the prefix's tokens. Loading a state file made from another model
 * can crash llama.cpp, so an entry is used only when its description matches exactly and its
 * bytes hash to what was written; anything else is deleted and made again. The least recently
 * used entries go once the folder outgrows its cap.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { LlamaContextSequence, Token } from 'node-llama-cpp';
import { privateDir, privateFile } from '../storage/index.js';

/** Default cap of the folder: a 0.5B model's 3,500-token prefix is ~43 MB, a 7B one's ~200 MB. */
export const DEFAULT_PREFIX_CACHE_BYTES = 512 * 1024 * 1024;

/** Bumped when the entry format changes: older entries then no longer match and are replaced. */
const FORMAT = 1;

/** What an evaluated state depends on besides the prefix: the model file and the context. */
export interface PrefixModelIdentity {
  model: { path: string; bytes: number; mtimeMs: number };
  context: Record<string, string | number | boolean>;
}

interface EntryMeta {
  format: number;
  identity: PrefixModelIdentity;
  prefixHash: string;
  tokens: number;
  sha256: string;
}

const hex = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

/** The hash a prefix is filed under: of its tokens, so any rendering of it keys itself. */
export function prefixHash(tokens: readonly Token[]): string {
  return hex(new Uint8Array(Uint32Array.from(tokens).buffer));
}

export function identityKey(identity: PrefixModelIdentity): string {
  return hex(JSON.stringify(identity)).slice(0, 16);
}

async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  // Large reads: a state file is tens of megabytes, and this is on a new chat's path.
  for await (const chunk of createReadStream(file, { highWaterMark: 8 * 1024 * 1024 }))
    hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export class PrefixStateStore {
  private writes = Promise.resolve();

  constructor(
    readonly dir: string,
    readonly maxBytes = DEFAULT_PREFIX_CACHE_BYTES,
  ) {}

  private base(identity: PrefixModelIdentity, hash: string): string {
    return path.join(this.dir, `${identityKey(identity)}-${hash.slice(0, 32)}`);
  }

  /**
   * Loads the prefix's evaluated state into `sequence`; false (and the sequence left empty) when
   * there is no usable entry, in which case a bad one is deleted.
   */
  async restore(
    sequence: LlamaContextSequence,
    identity: PrefixModelIdentity,
    hash: string,
    expected?: readonly Token[],
  ): Promise<boolean> {
    const base = this.base(identity, hash);
    let meta: EntryMeta;
    try {
      meta = JSON.parse(await readFile(`${base}.json`, 'utf8')) as EntryMeta;
    } catch {
      return false;
    }
    const matches =
      meta.format === FORMAT &&
      meta.prefixHash === hash &&
      JSON.stringify(meta.identity) === JSON.stringify(identity) &&
      (expected === undefined || meta.tokens === expected.length);
    try {
      if (!matches || (await fileSha256(`${base}.state`)) !== meta.sha256)
        throw new Error('mismatch');
      await sequence.loadStateFromFile(`${base}.state`, { acceptRisk: true });
      if (prefixHash(sequence.contextTokens) !== hash) throw new Error('other tokens');
    } catch {
      if (!sequence.disposed) await sequence.clearHistory();
      await this.remove(base);
      return false;
    }
    const now = new Date();
    await utimes(`${base}.state`, now, now).catch(() => undefined);
    return true;
  }

  /** The prefix most recently used with this model and context, if one is on disk. */
  async latest(identity: PrefixModelIdentity): Promise<string | undefined> {
    const key = identityKey(identity);
    const entries = (await this.entries()).filter((entry) => entry.name.startsWith(`${key}-`));
    const newest = entries.sort((a, b) => b.mtimeMs - a.mtimeMs)[0];
    if (!newest) return undefined;
    try {
      const meta = JSON.parse(
        await readFile(path.join(this.dir, `${newest.name}.json`), 'utf8'),
      ) as EntryMeta;
      return meta.prefixHash;
    } catch {
      return undefined;
    }
  }

  /** Writes the sequence's state (which must hold exactly the prefix), then keeps under the cap. */
  save(sequence: LlamaContextSequence, identity: PrefixModelIdentity): Promise<void> {
    const write = this.writes.then(async () => {
      const tokens = sequence.contextTokens;
      const hash = prefixHash(tokens);
      const base = this.base(identity, hash);
      const temp = `${base}.${process.pid}.tmp`;
      privateDir(this.dir);
      try {
        await sequence.saveStateToFile(`${temp}.state`);
        privateFile(`${temp}.state`);
        const meta: EntryMeta = {
          format: FORMAT,
          identity,
          prefixHash: hash,
          tokens: tokens.length,
          sha256: await fileSha256(`${temp}.state`),
        };
        await writeFile(`${temp}.json`, JSON.stringify(meta));
        privateFile(`${temp}.json`);
        // The state first: a reader that finds the description finds the bytes it describes.
        await rename(`${temp}.state`, `${base}.state`);
        await rename(`${temp}.json`, `${base}.json`);
      } finally {
        await rm(`${temp}.state`, { force: true });
        await rm(`${temp}.json`, { force: true });
      }
      await this.evict();
    });
    this.writes = write.catch(() => undefined);
    return write;
  }

  /** Deletes the least recently used entries until the folder is under its cap. */
  async evict(): Promise<void> {
    const entries = (await this.entries()).sort((a, b) => a.mtimeMs - b.mtimeMs);
    let total = entries.reduce((sum, entry) => sum + entry.bytes, 0);
    for (const entry of entries) {
      if (total <= this.maxBytes) break;
      await this.remove(path.join(this.dir, entry.name));
      total -= entry.bytes;
    }
  }

  /** Every entry (state file and description) with its size and when it was last used. */
  async entries(): Promise<Array<{ name: string; bytes: number; mtimeMs: number }>> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return [];
    }
    const found = [];
    for (const name of names) {
      if (!name.endsWith('.state') || name.includes('.tmp')) continue;
      const base = name.slice(0, -'.state'.length);
      try {
        const state = await stat(path.join(this.dir, name));
        const meta = await stat(path.join(this.dir, `${base}.json`)).catch(() => undefined);
        found.push({
          name: base,
          bytes: state.size + (meta?.size ?? 0),
          mtimeMs: state.mtimeMs,
        });
      } catch {
        // Removed meanwhile.
      }
    }
    return found;
  }

  private async remove(base: string): Promise<void> {
    await rm(`${base}.json`, { force: true });
    await rm(`${base}.state`, { force: true });
  }
}

/** The data dir's folder of evaluated prefixes. */
export function prefixCacheDir(dataDir: string): string {
  return path.join(dataDir, 'prefix-cache');
}

/** The engine's `prefixCache` option from a folder and a cap: none without a folder or at 0. */
export function prefixCacheOption(
  dir: string | undefined,
  maxBytes?: number,
): { dir: string; maxBytes?: number } | undefined {
  return dir && maxBytes !== 0 ? { dir, maxBytes } : undefined;
}
