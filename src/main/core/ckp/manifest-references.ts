/**
 * The entries of a root manifest's slots followed to documents: inline primitives, file paths
 * and globs beside the manifest, and claw://local URIs in the primitive library.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { getAt, type IssueList, isRecord } from './issue-list.js';
import type { DocPath } from './issues.js';
import { MANIFEST_SLOTS, type ManifestSlot, type PrimitiveKind } from './schemas.js';
import { parseClawUri, type UriKind } from './uri.js';
import { readSource, type SourceCache, type SourceDocument } from './yaml-source.js';

/** A document region a primitive comes from, and where its spec fields live inside it. */
export interface Candidate {
  kind: PrimitiveKind;
  slot: ManifestSlot;
  doc: SourceDocument;
  /** Path of the primitive inside the document ([] for a whole document). */
  base: DocPath;
  inline: boolean;
  /** Order inside the slot, for generated names. */
  ordinal: number;
}

/** A kind as claw:// URIs spell it. */
export const LOWER: Record<PrimitiveKind, UriKind> = {
  Identity: 'identity',
  Provider: 'provider',
  Channel: 'channel',
  Tool: 'tool',
  Skill: 'skill',
  Memory: 'memory',
  Sandbox: 'sandbox',
  Policy: 'policy',
  Swarm: 'swarm',
  Telemetry: 'telemetry',
  WorldModel: 'world-model',
};

export class ManifestReferences {
  /** The root manifest's document, set once it is read; entries are reported against it. */
  root!: SourceDocument;

  constructor(
    private readonly issues: IssueList,
    private readonly rootFile: string,
    private readonly options: { libraryDirs: string[]; sourceCache?: SourceCache | undefined },
  ) {}

  /** Reads a file's documents, reporting a missing file or YAML errors against `from`. */
  async readDocuments(
    file: string,
    from: SourceDocument | undefined,
    at: DocPath,
  ): Promise<SourceDocument[] | undefined> {
    if (!existsSync(file)) {
      const shown = from ? path.relative(path.dirname(from.file), file) : file;
      if (from)
        this.issues.add('ref.missing-file', from, at, `referenced file "${shown}" does not exist`);
      else
        this.issues.items.push({
          rule: 'ref.missing-file',
          severity: 'error',
          file,
          path: '(document)',
          message: 'manifest file does not exist',
        });
      return undefined;
    }
    const source = await readSource(file, this.options.sourceCache);
    this.issues.items.push(...source.issues);
    if (source.issues.length > 0) return undefined;
    const documents = source.documents.filter((doc) => doc.data !== null && doc.data !== undefined);
    if (documents.length === 0) {
      this.issues.items.push({
        rule: 'envelope.required',
        severity: 'error',
        file,
        path: '(document)',
        message: 'the file holds no document',
      });
      return undefined;
    }
    return documents;
  }

  /** Every candidate primitive an entry of `spec.<slot>` stands for. */
  async expandSlot(slot: ManifestSlot, value: unknown): Promise<Candidate[]> {
    if (value === undefined) return [];
    const { kind, list } = MANIFEST_SLOTS[slot];
    if (list && !Array.isArray(value)) {
      this.issues.add('ref.entry', this.root, ['spec', slot], `spec.${slot} is a list of entries`);
      return [];
    }
    if (!list && Array.isArray(value)) {
      this.issues.add(
        slot === 'identity' ? 'manifest.identity' : 'ref.entry',
        this.root,
        ['spec', slot],
        `spec.${slot} takes exactly one entry, not a list`,
      );
      return [];
    }
    const entries: unknown[] = list ? (value as unknown[]) : [value];
    const out: Candidate[] = [];
    for (const [index, entry] of entries.entries()) {
      const at: DocPath = list ? ['spec', slot, index] : ['spec', slot];
      const add = (doc: SourceDocument, base: DocPath, inline: boolean) =>
        out.push({ kind, slot, doc, base, inline, ordinal: out.length });
      if (isRecord(entry) && 'inline' in entry) {
        const extra = Object.keys(entry).filter((key) => key !== 'inline');
        for (const key of extra) {
          this.issues.add(
            'ref.entry',
            this.root,
            [...at, key],
            `unexpected "${key}" next to inline:`,
          );
        }
        if (!isRecord(entry.inline)) {
          this.issues.add(
            'ref.entry',
            this.root,
            [...at, 'inline'],
            'inline: holds the primitive spec as a mapping',
          );
          continue;
        }
        add(this.root, [...at, 'inline'], true);
      } else if (typeof entry === 'string' && entry.startsWith('claw://')) {
        const doc = await this.resolveUri(entry, kind, at);
        if (doc) add(doc, [], false);
      } else if (typeof entry === 'string' && entry.trim() !== '') {
        for (const doc of await this.resolveFileRef(entry, at)) add(doc, [], false);
      } else {
        this.issues.add(
          'ref.entry',
          this.root,
          at,
          'an entry is a file path, a glob, a claw:// URI or { inline: {...} }',
        );
      }
    }
    return out;
  }

  async resolveFileRef(ref: string, at: DocPath): Promise<SourceDocument[]> {
    const dir = path.dirname(this.rootFile);
    // The globber loads only for manifests that reference other files.
    const { glob, isDynamicPattern } = await import('tinyglobby');
    let files: string[];
    if (isDynamicPattern(ref)) {
      files = (await glob(ref, { cwd: dir, absolute: true, onlyFiles: true })).sort();
      if (files.length === 0) {
        this.issues.add(
          'ref.missing-file',
          this.root,
          at,
          `glob "${ref}" matched no files`,
          'warning',
        );
      }
    } else {
      files = [path.resolve(dir, ref)];
    }
    const out: SourceDocument[] = [];
    for (const file of files) {
      if (path.resolve(file) === this.rootFile) {
        this.issues.add(
          'ref.cycle',
          this.root,
          at,
          `"${ref}" refers back to the manifest itself (${path.basename(file)})`,
        );
        continue;
      }
      out.push(...((await this.readDocuments(file, this.root, at)) ?? []));
    }
    return out;
  }

  async resolveUri(
    text: string,
    kind: PrimitiveKind,
    at: DocPath,
  ): Promise<SourceDocument | undefined> {
    const parsed = parseClawUri(text);
    if (!parsed.ok) {
      this.issues.add('uri.grammar', this.root, at, `invalid claw URI "${text}": ${parsed.error}`);
      return undefined;
    }
    const uri = parsed.value;
    if (uri.form === 'registry') {
      this.issues.add(
        'uri.registry',
        this.root,
        at,
        `"${text}" needs a CKP registry, and none is configured (no public registry exists yet); ` +
          'copy the primitive into a local file and reference that instead',
      );
      return undefined;
    }
    if (uri.kind !== LOWER[kind]) {
      this.issues.add(
        'uri.kind',
        this.root,
        at,
        `"${text}" names a ${uri.kind}, but this slot holds ${kind} entries`,
      );
      return undefined;
    }
    const searched: string[] = [];
    for (const dir of this.options.libraryDirs) {
      for (const ext of ['.yaml', '.yml', '.json']) {
        const file = path.join(dir, uri.kind, `${uri.name}${ext}`);
        searched.push(file);
        if (!existsSync(file)) continue;
        const docs = await this.readDocuments(file, this.root, at);
        const doc = docs?.[0];
        const version = isRecord(doc?.data) ? getAt(doc.data, ['metadata', 'version']) : undefined;
        if (doc && uri.form === 'local' && uri.version && version !== uri.version) {
          this.issues.add(
            'ref.unresolved',
            this.root,
            at,
            `"${text}" asks for version ${uri.version}, but ${file} has ${String(version ?? 'none')}`,
          );
          return undefined;
        }
        return doc;
      }
    }
    this.issues.add(
      'ref.unresolved',
      this.root,
      at,
      `"${text}" (${uri.canonical}) is not in the local primitive library` +
        (searched.length
          ? ` (looked for ${uri.kind}/${uri.name}.yaml in ${this.options.libraryDirs.join(', ')})`
          : ' (no library directory configured)'),
    );
    return undefined;
  }
}
