/**
 * The tool schemas found valid, kept in `<data dir>/cache/schema-verdicts.json` so the next
 * start skips their JSON Schema check (a cache: a missing or unreadable file only costs the
 * check, and keys are content hashes, so an edited schema is checked again).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { cacheDir, writeCacheFile } from './cache-file.js';
import type { SchemaVerdicts } from './json-schema-check.js';

/** Enough for every tool of a few manifests; the oldest go first. */
const MAX_KEYS = 512;
const KEY = /^[0-9a-f]{64}$/;

export class SchemaVerdictsFile implements SchemaVerdicts {
  private changed = false;

  private constructor(
    readonly file: string,
    private readonly keys: Set<string>,
  ) {}

  static async open(file: string): Promise<SchemaVerdictsFile> {
    const keys = new Set<string>();
    try {
      const parsed: unknown = JSON.parse(await readFile(file, 'utf8'));
      if (Array.isArray(parsed)) {
        for (const key of parsed) if (typeof key === 'string' && KEY.test(key)) keys.add(key);
      }
    } catch {
      // No cache yet, or one this version cannot read: every schema is checked.
    }
    return new SchemaVerdictsFile(file, keys);
  }

  has(key: string): boolean {
    return this.keys.has(key);
  }

  add(key: string): void {
    if (this.keys.has(key)) return;
    this.keys.add(key);
    this.changed = true;
  }

  /** Writes the file when something was added (whole, then renamed into place). */
  async save(): Promise<void> {
    if (!this.changed) return;
    const kept = [...this.keys].slice(-MAX_KEYS);
    await writeCacheFile(this.file, `${JSON.stringify(kept)}\n`);
    this.changed = false;
  }
}

export const schemaVerdictsPath = (dataDir: string) =>
  path.join(cacheDir(dataDir), 'schema-verdicts.json');
