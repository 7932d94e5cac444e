/**
 * A manifest file as documents: their data, and line/column lookup for document paths. Parsed
 * text is remembered by content hash (`SourceCache`), so a start whose manifest has not changed
 * reads JSON instead of loading and running the YAML parser.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { DocPath, ManifestIssue } from './issues.js';

export interface SourceDocument {
  file: string;
  /** Index of this document inside a multi-document (`---`) file. */
  index: number;
  data: unknown;
  /** Line/column (1-based) of the node at `path`, or of its nearest existing ancestor. */
  locate(path: DocPath): { line: number; column: number } | undefined;
}

export interface SourceFile {
  file: string;
  documents: SourceDocument[];
  /** Syntax errors, already as issues. */
  issues: ManifestIssue[];
}

/** Start line and column of each node, keyed by `JSON.stringify` of its document path. */
export type Positions = Record<string, [number, number]>;

export interface ParsedDocument {
  index: number;
  data: unknown;
  positions: Positions;
}

/** What parsing a text gives, independent of the file it was read from. */
export interface ParsedSource {
  documents: ParsedDocument[];
  issues: ManifestIssue[];
}

/** Parsed texts by key; only texts that parsed without an issue are kept. */
export interface SourceCache {
  get(key: string): ParsedDocument[] | undefined;
  set(key: string, documents: ParsedDocument[]): void;
}

/** Bump when parsing changes what it gives (options, positions), so old entries are not used. */
const PARSE_REVISION = 1;

export const sourceKey = (text: string) =>
  createHash('sha256').update(`pincer-yaml-${PARSE_REVISION}\n`).update(text).digest('hex');

export async function readSource(file: string, cache?: SourceCache): Promise<SourceFile> {
  const text = await readFile(file, 'utf8');
  const key = cache ? sourceKey(text) : '';
  const known = cache?.get(key);
  if (known) return { file, documents: known.map((doc) => sourceDocument(file, doc)), issues: [] };
  const { parseYaml } = await import('./yaml-parse.js');
  const parsed = parseYaml(file, text);
  if (cache && parsed.issues.length === 0 && parsed.documents.every(isPlainData))
    cache.set(key, parsed.documents);
  return {
    file,
    documents: parsed.documents.map((doc) => sourceDocument(file, doc)),
    issues: parsed.issues,
  };
}

function sourceDocument(file: string, parsed: ParsedDocument): SourceDocument {
  return {
    file,
    index: parsed.index,
    data: parsed.data,
    locate(path) {
      for (let depth = path.length; depth >= 0; depth--) {
        const found = parsed.positions[JSON.stringify(path.slice(0, depth))];
        if (found) return { line: found[0], column: found[1] };
      }
      return undefined;
    },
  };
}

/** Data that JSON gives back unchanged (YAML's `.inf` and `.nan` would come back as null). */
function isPlainData(doc: ParsedDocument): boolean {
  const plain = (value: unknown): boolean => {
    if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
    if (typeof value === 'number') return Number.isFinite(value);
    if (Array.isArray(value)) return value.every(plain);
    if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
      return Object.values(value as object).every(plain);
    return false;
  };
  return plain(doc.data);
}

/** A cache file's entry as parsing gives it (what `SourceCache` may hold). */
export function isParsedDocuments(value: unknown): value is ParsedDocument[] {
  return Array.isArray(value) && value.every(isParsedDocument);
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
