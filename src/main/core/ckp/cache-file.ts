/**
 * The manifest load's caches under `<data dir>/cache/`: values by content hash in one JSON file,
 * so an edited input has another key and is never served stale. A cache: a missing, unreadable
 * or foreign file only costs the work it would have saved. Written whole, then renamed into
 * place; past `max` entries the least recently used go first.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

const KEY = /^[0-9a-f]{64}$/;

export const cachePath = (dataDir: string, name: string) => path.join(dataDir, 'cache', name);

export class HashCache<V> {
  private changed = false;

  /** Entries as JSON text, so each `get` hands out fresh values a caller may change. */
  private constructor(
    readonly file: string,
    private readonly max: number,
    private readonly entries: Map<string, string>,
  ) {}

  static async open<V>(
    file: string,
    options: { max: number; valid: (value: unknown) => value is V },
  ): Promise<HashCache<V>> {
    const entries = new Map<string, string>();
    try {
      const parsed: unknown = JSON.parse(await readFile(file, 'utf8'));
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        for (const [key, value] of Object.entries(parsed)) {
          if (KEY.test(key) && options.valid(value)) entries.set(key, JSON.stringify(value));
        }
      }
    } catch {
      // No cache yet, or one this version cannot read.
    }
    return new HashCache<V>(file, options.max, entries);
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  get(key: string): V | undefined {
    const text = this.entries.get(key);
    if (text === undefined) return undefined;
    // Most recently used last, so the ones in use survive the trim on save.
    this.entries.delete(key);
    this.entries.set(key, text);
    return JSON.parse(text) as V;
  }

  set(key: string, value: V): void {
    const text = JSON.stringify(value);
    if (this.entries.get(key) === text) return;
    this.entries.set(key, text);
    this.changed = true;
  }

  /** Writes the file when something was added. */
  async save(): Promise<void> {
    if (!this.changed) return;
    const kept = [...this.entries].slice(-this.max);
    const text = `{${kept.map(([key, value]) => `"${key}":${value}`).join(',')}}\n`;
    await mkdir(path.dirname(this.file), { recursive: true });
    const temporary = `${this.file}.${process.pid}.tmp`;
    await writeFile(temporary, text, { mode: 0o600 });
    await rename(temporary, this.file);
    this.changed = false;
  }
}
