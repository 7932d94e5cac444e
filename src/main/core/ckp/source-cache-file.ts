/**
 * Parsed manifest texts, kept in `<data dir>/cache/manifest-sources.json` by content hash, so a
 * start whose files have not changed skips the YAML parser (a cache: a missing or unreadable
 * file only costs the parse, and an edited file has another hash).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { cacheDir, writeCacheFile } from './cache-file.js';
import type { ParsedDocument, SourceCache } from './yaml-source.js';

/** Enough for the files of a few manifests; the least recently used go first. */
const MAX_ENTRIES = 64;
const KEY = /^[0-9a-f]{64}$/;

export class SourceCacheFile implements SourceCache {
  private changed = false;

  /** Entries as JSON text, so each `get` hands out fresh objects the loader may change. */
  private constructor(
    readonly file: string,
    private readonly entries: Map<string, string>,
  ) {}

  static async open(file: string): Promise<SourceCacheFile> {
    const entries = new Map<string, string>();
    try {
      const parsed: unknown = JSON.parse(await readFile(file, 'utf8'));
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        for (const [key, documents] of Object.entries(parsed)) {
          if (KEY.test(key) && Array.isArray(documents) && documents.every(isParsedDocument))
            entries.set(key, JSON.stringify(documents));
        }
      }
    } catch {
      // No cache yet, or one this version cannot read: every file is parsed.
    }
    return new SourceCacheFile(file, entries);
  }

  get(key: string): ParsedDocument[] | undefined {
    const text = this.entries.get(key);
    if (text === undefined) return undefined;
    // Most recently used last, so the ones in use survive the trim on save.
    this.entries.delete(key);
    this.entries.set(key, text);
    return JSON.parse(text) as ParsedDocument[];
  }

  set(key: string, documents: ParsedDocument[]): void {
    this.entries.set(key, JSON.stringify(documents));
    this.changed = true;
  }

  /** Writes the file when something was added. */
  async save(): Promise<void> {
    if (!this.changed) return;
    const kept = [...this.entries].slice(-MAX_ENTRIES);
    await writeCacheFile(
      this.file,
      `{${kept.map(([key, text]) => `"${key}":${text}`).join(',')}}\n`,
    );
    this.changed = false;
  }
}

function isParsedDocument(value: unknown): value is ParsedDocument {
  if (!value || typeof value !== 'object') return false;
  const doc = value as Partial<ParsedDocument>;
  return (
    typeof doc.index === 'number' &&
    'data' in doc &&
    !!doc.positions &&
    typeof doc.positions === 'object' &&
    Object.values(doc.positions).every(
      (at) => Array.isArray(at) && at.length === 2 && at.every((n) => typeof n === 'number'),
    )
  );
}

export const sourceCachePath = (dataDir: string) =>
  path.join(cacheDir(dataDir), 'manifest-sources.json');
