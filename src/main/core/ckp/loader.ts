/**
 * Loads a root `kind: Claw` manifest (§6): follows file references, globs, claw:// URIs and
 * inline primitives, validates every primitive and the manifest as a whole, and collects every
 * problem with its file, document path, rule and line.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { z } from 'zod';
import { computeConformance } from './conformance.js';
import { checkManifestRefs } from './crossrefs.js';
import {
  type DocPath,
  formatDocPath,
  ManifestError,
  type ManifestIssue,
  type RuleId,
} from './issues.js';
import { loadSchemaValidator, needsValidator, type SchemaVerdicts } from './json-schema-check.js';
import { resolvePathValue, substitutePathVars } from './path-vars.js';
import type { AnyPrimitive, Primitive, ResolvedClaw } from './resolved.js';
import { checkSpecRules } from './rules.js';
import {
  ALL_KINDS,
  clawMetadataSchema,
  KEBAB_NAME,
  MANIFEST_SLOTS,
  type ManifestSlot,
  MEMORY_STORE_FIELDS_0_3,
  metadataSchema,
  type PrimitiveKind,
  SPEC_SCHEMAS,
  TELEMETRY_FIELDS_0_3,
} from './schemas.js';
import { keepSpec, type SpecParses, specKey } from './spec-parses.js';
import { parseClawUri, type UriKind } from './uri.js';
import { CKP_PROTOCOL_VERSION, checkProtocolVersion, protocolHas } from './version.js';
import { readSource, type SourceCache, type SourceDocument } from './yaml-source.js';

export interface LoadOptions {
  /** Where relative path values (context files, memory paths) resolve; default: manifest dir. */
  contextDir?: string;
  /** Value of `{tenant_id}`; Pincer is single-user, so `local` by default. */
  tenantId?: string;
  homedir?: string;
  /** Directories holding `<kind>/<name>.yaml` primitives that claw://local URIs resolve to. */
  libraryDirs?: string[];
  /** Tool schemas already found valid (by content): their JSON Schema check is skipped. */
  schemaVerdicts?: SchemaVerdicts;
  /** Files already parsed (by content): their YAML is not parsed again. */
  sourceCache?: SourceCache;
  /** Specs already validated (by content): zod does not parse them again. */
  specParses?: SpecParses;
}

export interface CheckResult {
  /** Present only when the manifest has no errors. */
  claw?: ResolvedClaw;
  /** Errors and warnings, in discovery order. */
  issues: ManifestIssue[];
}

type Raw = Record<string, unknown>;
const isRecord = (value: unknown): value is Raw =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A document region a primitive comes from, and where its spec fields live inside it. */
interface Candidate {
  kind: PrimitiveKind;
  slot: ManifestSlot;
  doc: SourceDocument;
  /** Path of the primitive inside the document ([] for a whole document). */
  base: DocPath;
  inline: boolean;
  /** Order inside the slot, for generated names. */
  ordinal: number;
}

class IssueList {
  readonly items: ManifestIssue[] = [];
  add(
    rule: RuleId,
    doc: Pick<SourceDocument, 'file' | 'locate'>,
    at: DocPath,
    message: string,
    severity: ManifestIssue['severity'] = 'error',
  ) {
    const pos = doc.locate(at);
    this.items.push({
      rule,
      severity,
      file: doc.file,
      path: formatDocPath(at),
      message,
      ...(pos ? { line: pos.line, column: pos.column } : {}),
    });
  }
  get hasErrors() {
    return this.items.some((issue) => issue.severity === 'error');
  }
}

const LOWER: Record<PrimitiveKind, UriKind> = {
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

function getAt(data: unknown, at: DocPath): unknown {
  let node = data;
  for (const key of at) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, unknown>)[key];
  }
  return node;
}

/** Turns zod issues on `data` (found at `base` in `doc`) into manifest issues. */
function reportZod(
  issues: IssueList,
  doc: SourceDocument,
  base: DocPath,
  data: unknown,
  error: z.ZodError,
  kind: string,
  lenientUnknown: boolean,
) {
  for (const issue of error.issues) {
    const at = issue.path.filter((part): part is string | number => typeof part !== 'symbol');
    const full = [...base, ...at];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        issues.add(
          'schema.unknown-field',
          doc,
          [...full, key],
          `unknown field "${key}" in ${kind}${lenientUnknown ? ' (ignored: newer protocol minor)' : ''}`,
          lenientUnknown ? 'warning' : 'error',
        );
      }
    } else if (issue.code === 'invalid_type' && getAt(data, at) === undefined) {
      const field = String(at.at(-1) ?? '');
      issues.add('schema.required', doc, full, `${kind} requires "${field}"`);
    } else {
      issues.add('schema.type', doc, full, issue.message);
    }
  }
}

/** A copy of `data` without the keys zod reported as unrecognized. */
function withoutUnknownKeys(data: unknown, error: z.ZodError): unknown {
  const copy: unknown = structuredClone(data);
  for (const issue of error.issues) {
    if (issue.code !== 'unrecognized_keys') continue;
    const at = issue.path.filter((part): part is string | number => typeof part !== 'symbol');
    const owner = getAt(copy, at);
    if (isRecord(owner)) for (const key of issue.keys) delete owner[key];
  }
  return copy;
}

/** Checks `claw:` of a document; returns whether its fields are to be read leniently. */
function checkProtocol(issues: IssueList, doc: SourceDocument, at: DocPath, value: unknown) {
  if (value === undefined) {
    issues.add(
      'envelope.required',
      doc,
      at.slice(0, -1),
      'the "claw" protocol version is required',
    );
    return false;
  }
  const result = checkProtocolVersion(String(value));
  if (!result.ok) {
    issues.add(
      'envelope.protocol-version',
      doc,
      at,
      result.error === 'not-semver'
        ? `claw "${String(value)}" is not a semver protocol version`
        : `claw "${String(value)}" has another major version than this runtime's ${CKP_PROTOCOL_VERSION} (incompatible)`,
    );
    return false;
  }
  if (result.value.newerMinor) {
    issues.add(
      'envelope.protocol-version',
      doc,
      at,
      `claw "${String(value)}" is newer than this runtime's ${CKP_PROTOCOL_VERSION}; fields it does not know are ignored`,
      'warning',
    );
  }
  return result.value.newerMinor;
}

export class ClawLoader {
  private readonly issues = new IssueList();
  private readonly options: Required<
    Omit<LoadOptions, 'schemaVerdicts' | 'sourceCache' | 'specParses'>
  > &
    Pick<LoadOptions, 'schemaVerdicts' | 'sourceCache' | 'specParses'>;
  private root!: SourceDocument;
  private rootFile: string;
  private rootVersion = '0.0.0';
  private rootName = 'claw';
  private rootProtocol = '0.2.0';
  /** The manifest declares a newer minor: unknown fields are warnings (inline ones too). */
  private rootLenient = false;
  /** Where each built primitive's spec sits, for problems found after it was built. */
  private readonly locations = new Map<AnyPrimitive, { doc: SourceDocument; specAt: DocPath }>();

  constructor(file: string, options: LoadOptions = {}) {
    this.rootFile = path.resolve(file);
    this.options = {
      contextDir: options.contextDir ?? path.dirname(this.rootFile),
      tenantId: options.tenantId ?? 'local',
      homedir: options.homedir ?? os.homedir(),
      libraryDirs: options.libraryDirs ?? [],
      schemaVerdicts: options.schemaVerdicts,
      sourceCache: options.sourceCache,
      specParses: options.specParses,
    };
  }

  async check(): Promise<CheckResult> {
    const claw = await this.run();
    return { ...(claw && !this.issues.hasErrors ? { claw } : {}), issues: this.issues.items };
  }

  private async run(): Promise<ResolvedClaw | undefined> {
    const rootDoc = await this.readDocuments(this.rootFile, undefined, []);
    if (!rootDoc) return undefined;
    if (rootDoc.length !== 1 || !rootDoc[0]) {
      const first = rootDoc[0];
      if (first) {
        this.issues.add('manifest.kind', first, [], 'a root manifest is one document, not several');
      }
      return undefined;
    }
    this.root = rootDoc[0];
    const data = this.root.data;
    if (!isRecord(data)) {
      this.issues.add(
        'manifest.kind',
        this.root,
        [],
        'a root manifest is a mapping with kind: Claw',
      );
      return undefined;
    }
    if (data.kind !== 'Claw') {
      this.issues.add(
        'manifest.kind',
        this.root,
        data.kind === undefined ? [] : ['kind'],
        data.kind === undefined
          ? 'a root manifest requires kind: Claw'
          : `a root manifest has kind: Claw, not "${String(data.kind)}"`,
      );
      return undefined;
    }
    const lenient = checkProtocol(this.issues, this.root, ['claw'], data.claw);
    this.rootLenient = lenient;
    this.rootProtocol = typeof data.claw === 'string' ? data.claw : this.rootProtocol;
    for (const key of Object.keys(data)) {
      if (!['claw', 'kind', 'metadata', 'spec'].includes(key)) {
        this.issues.add('schema.unknown-field', this.root, [key], `unknown field "${key}" in Claw`);
      }
    }
    const meta = clawMetadataSchema.safeParse(data.metadata);
    if (data.metadata === undefined) {
      this.issues.add('envelope.required', this.root, [], 'metadata.name is required');
    } else if (!meta.success) {
      reportZod(
        this.issues,
        this.root,
        ['metadata'],
        data.metadata,
        meta.error,
        'metadata',
        lenient,
      );
    }
    const metadata = meta.success ? meta.data : undefined;
    if (metadata)
      this.checkNameAndVersion(this.root, ['metadata'], metadata.name, metadata.version);
    this.rootName = metadata?.name ?? this.rootName;
    this.rootVersion = metadata?.version ?? this.rootVersion;

    if (!isRecord(data.spec)) {
      this.issues.add(
        'envelope.required',
        this.root,
        data.spec === undefined ? [] : ['spec'],
        'spec is required and is a mapping',
      );
      return undefined;
    }
    const spec = data.spec;
    for (const key of Object.keys(spec)) {
      if (!(key in MANIFEST_SLOTS)) {
        this.issues.add(
          'schema.unknown-field',
          this.root,
          ['spec', key],
          `unknown field "${key}" in Claw spec (slots: ${Object.keys(MANIFEST_SLOTS).join(', ')})`,
          lenient ? 'warning' : 'error',
        );
      }
    }

    if (spec.world_models !== undefined && !protocolHas(this.rootProtocol, '0.3.0')) {
      this.issues.add(
        'envelope.introduced',
        this.root,
        ['spec', 'world_models'],
        `spec.world_models needs claw "0.3.0"; this manifest declares "${this.rootProtocol}"`,
      );
    }
    const candidates: Candidate[] = [];
    for (const slot of Object.keys(MANIFEST_SLOTS) as ManifestSlot[]) {
      candidates.push(...(await this.expandSlot(slot, spec[slot])));
    }
    this.checkCardinality(spec, candidates);

    // The JSON Schema validator loads only for tool schemas the verdicts do not vouch for.
    if (candidates.some((candidate) => this.needsSchemaCheck(candidate)))
      await loadSchemaValidator();
    const primitives: AnyPrimitive[] = [];
    for (const candidate of candidates) {
      const primitive = this.buildPrimitive(candidate);
      if (primitive) primitives.push(primitive);
    }
    this.checkUniqueNames(candidates);
    checkManifestRefs(primitives, (rule, primitive, at, message) =>
      this.reportIn(primitive, rule, at, message),
    );
    const identity = primitives.find((p): p is Primitive<'Identity'> => p.kind === 'Identity');
    if (identity) this.resolvePaths(primitives, identity);
    if (this.issues.hasErrors || !identity) return undefined;

    const ofKind = <K extends PrimitiveKind>(kind: K) =>
      primitives.filter((p): p is Extract<AnyPrimitive, { kind: K }> => p.kind === kind);
    const single = <K extends PrimitiveKind>(kind: K) => ofKind(kind)[0];
    const memory = single('Memory');
    const sandbox = single('Sandbox');
    const swarm = single('Swarm');
    const telemetry = single('Telemetry');
    return {
      file: this.rootFile,
      dir: path.dirname(this.rootFile),
      protocol: this.rootProtocol,
      name: this.rootName,
      version: this.rootVersion,
      ...(metadata?.description !== undefined ? { description: metadata.description } : {}),
      labels: metadata?.labels ?? {},
      annotations: metadata?.annotations ?? {},
      identity,
      providers: ofKind('Provider'),
      channels: ofKind('Channel'),
      tools: ofKind('Tool'),
      skills: ofKind('Skill'),
      policies: ofKind('Policy'),
      ...(memory ? { memory } : {}),
      ...(sandbox ? { sandbox } : {}),
      ...(swarm ? { swarm } : {}),
      ...(telemetry ? { telemetry } : {}),
      worldModels: ofKind('WorldModel'),
      conformance: computeConformance(new Set(primitives.map((p) => p.kind))),
      warnings: this.issues.items.filter((issue) => issue.severity === 'warning'),
    };
  }

  private checkNameAndVersion(doc: SourceDocument, at: DocPath, name: string, version?: string) {
    if (!KEBAB_NAME.test(name)) {
      this.issues.add(
        'envelope.name',
        doc,
        [...at, 'name'],
        `name "${name}" must be 1-63 letters, digits or "-", starting with a letter or digit`,
      );
    }
    if (version !== undefined && !/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) {
      this.issues.add(
        'envelope.version',
        doc,
        [...at, 'version'],
        `version "${version}" is not a semver`,
      );
    }
  }

  /** Reads a file's documents, reporting a missing file or YAML errors against `from`. */
  private async readDocuments(
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
  private async expandSlot(slot: ManifestSlot, value: unknown): Promise<Candidate[]> {
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

  private async resolveFileRef(ref: string, at: DocPath): Promise<SourceDocument[]> {
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

  private async resolveUri(
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

  private checkCardinality(spec: Raw, candidates: Candidate[]) {
    const identities = candidates.filter((c) => c.kind === 'Identity');
    if (spec.identity === undefined) {
      this.issues.add(
        'manifest.identity',
        this.root,
        ['spec'],
        'spec.identity is required: a Claw has exactly one Identity',
      );
    } else if (identities.length > 1) {
      this.issues.add(
        'manifest.identity',
        this.root,
        ['spec', 'identity'],
        `a Claw has exactly one Identity, but spec.identity yields ${identities.length} (${identities
          .map((c) => path.basename(c.doc.file))
          .join(', ')})`,
      );
    }
    const providers = candidates.filter((c) => c.kind === 'Provider');
    if (spec.providers === undefined) {
      this.issues.add(
        'manifest.providers',
        this.root,
        ['spec'],
        'spec.providers is required: a Claw has at least one Provider',
      );
    } else if (Array.isArray(spec.providers) && spec.providers.length === 0) {
      this.issues.add(
        'manifest.providers',
        this.root,
        ['spec', 'providers'],
        'spec.providers must contain at least one entry',
      );
    } else if (Array.isArray(spec.providers) && providers.length === 0 && !this.issues.hasErrors) {
      this.issues.add(
        'manifest.providers',
        this.root,
        ['spec', 'providers'],
        'spec.providers yields no Provider (its globs matched nothing)',
      );
    }
  }

  private needsSchemaCheck(candidate: Candidate): boolean {
    if (candidate.kind !== 'Tool') return false;
    const raw = getAt(candidate.doc.data, candidate.base);
    const schema = candidate.inline
      ? getAt(raw, ['input_schema'])
      : getAt(raw, ['spec', 'input_schema']);
    return needsValidator(schema, this.options.schemaVerdicts);
  }

  /** Validates one candidate; returns the typed primitive when its spec is valid. */
  private buildPrimitive(candidate: Candidate): AnyPrimitive | undefined {
    const { doc, base, kind } = candidate;
    const raw = getAt(doc.data, base);
    if (!isRecord(raw)) {
      this.issues.add('envelope.required', doc, base, `a ${kind} document is a mapping`);
      return undefined;
    }
    let protocol = this.rootProtocol;
    let lenient = this.rootLenient;
    let metaRaw: unknown;
    let specRaw: unknown;
    let specAt: DocPath;
    let metaAt: DocPath;

    if (candidate.inline) {
      const { name, metadata, ...rest } = raw;
      metaRaw = metadata !== undefined ? metadata : name !== undefined ? { name } : undefined;
      metaAt = metadata !== undefined ? [...base, 'metadata'] : base;
      specRaw = rest;
      specAt = base;
    } else {
      lenient = checkProtocol(this.issues, doc, [...base, 'claw'], raw.claw);
      if (typeof raw.claw === 'string') protocol = raw.claw;
      if (raw.kind === undefined) {
        this.issues.add(
          'envelope.required',
          doc,
          base,
          `the "kind" field is required (expected ${kind})`,
        );
      } else if (raw.kind !== kind) {
        const known = (ALL_KINDS as readonly unknown[]).includes(raw.kind);
        this.issues.add(
          'envelope.kind',
          doc,
          [...base, 'kind'],
          known
            ? `spec.${candidate.slot} holds ${kind} primitives, but this document has kind ${String(raw.kind)}`
            : `unknown kind "${String(raw.kind)}" (one of ${ALL_KINDS.join(', ')})`,
        );
        return undefined;
      }
      for (const key of Object.keys(raw)) {
        if (!['claw', 'kind', 'metadata', 'spec'].includes(key)) {
          this.issues.add(
            'schema.unknown-field',
            doc,
            [...base, key],
            `unknown field "${key}" in ${kind}`,
            lenient ? 'warning' : 'error',
          );
        }
      }
      if (raw.metadata === undefined || getAt(raw, ['metadata', 'name']) === undefined) {
        this.issues.add(
          'envelope.required',
          doc,
          raw.metadata === undefined ? base : [...base, 'metadata'],
          'metadata.name is required',
        );
      }
      metaRaw = raw.metadata;
      metaAt = [...base, 'metadata'];
      specRaw = raw.spec;
      specAt = [...base, 'spec'];
      if (raw.spec === undefined) {
        this.issues.add('schema.required', doc, base, `${kind} requires "spec"`);
        return undefined;
      }
    }

    let meta: z.infer<typeof metadataSchema> | undefined;
    let generatedName = false;
    if (metaRaw === undefined && candidate.inline) {
      generatedName = true;
      meta = { name: `${this.rootName}-${LOWER[kind]}-${candidate.ordinal + 1}`.slice(0, 63) };
    } else if (metaRaw !== undefined) {
      const parsed = metadataSchema.safeParse(metaRaw);
      if (parsed.success) {
        meta = parsed.data;
        this.checkNameAndVersion(doc, metaAt, meta.name, meta.version);
      } else if (getAt(metaRaw, ['name']) !== undefined) {
        reportZod(this.issues, doc, metaAt, metaRaw, parsed.error, 'metadata', lenient);
      }
    }

    const schema = SPEC_SCHEMAS[kind];
    const { specParses } = this.options;
    const key = specParses ? specKey(kind, specRaw) : undefined;
    const known = key === undefined ? undefined : specParses?.get(key);
    let parsed: { success: true; data: unknown } | { success: false; error: z.ZodError } =
      known !== undefined ? { success: true, data: known } : schema.safeParse(specRaw);
    if (parsed.success && known === undefined && specParses && key)
      keepSpec(specParses, key, parsed.data);
    if (!parsed.success && lenient) {
      // Fields from a newer minor are reported as warnings, then left out of the typed model.
      const stripped = withoutUnknownKeys(specRaw, parsed.error);
      const retry = schema.safeParse(stripped);
      if (retry.success) {
        reportZod(this.issues, doc, specAt, specRaw, parsed.error, kind, lenient);
        parsed = retry;
      }
    }
    if (!parsed.success) {
      if (isRecord(specRaw))
        reportZod(this.issues, doc, specAt, specRaw, parsed.error, kind, lenient);
      else this.issues.add('schema.type', doc, specAt, `${kind} spec must be a mapping`);
    }
    for (const { at, what } of introducedIn030(kind, specRaw)) {
      if (protocolHas(protocol, '0.3.0')) break;
      this.issues.add(
        'envelope.introduced',
        doc,
        [...specAt, ...at],
        `${what} needs claw "0.3.0"; this document declares "${protocol}"`,
      );
    }
    checkSpecRules(
      kind,
      specRaw,
      specAt,
      (rule, at, message) => this.issues.add(rule, doc, at, message),
      this.options.schemaVerdicts,
    );
    if (!parsed.success || !meta) return undefined;

    const version = meta.version ?? this.rootVersion;
    const primitive = {
      kind,
      name: meta.name,
      version,
      uri: `claw://local/${LOWER[kind]}/${meta.name}@${version}`,
      protocol,
      labels: meta.labels ?? {},
      annotations: meta.annotations ?? {},
      spec: parsed.data,
      source: {
        file: doc.file,
        path: formatDocPath(base),
        document: doc.index,
        inline: candidate.inline,
      },
      generatedName,
    } as AnyPrimitive;
    this.locations.set(primitive, { doc, specAt });
    return primitive;
  }

  private metaNameOf(candidate: Candidate): string | undefined {
    const raw = getAt(candidate.doc.data, candidate.base);
    const name = candidate.inline
      ? (getAt(raw, ['metadata', 'name']) ?? getAt(raw, ['name']))
      : getAt(raw, ['metadata', 'name']);
    return typeof name === 'string' ? name : undefined;
  }

  private checkUniqueNames(candidates: Candidate[]) {
    const seen = new Map<string, Candidate>();
    for (const candidate of candidates) {
      const name = this.metaNameOf(candidate);
      if (!name) continue;
      const key = `${candidate.kind}/${name}`;
      const first = seen.get(key);
      if (!first) {
        seen.set(key, candidate);
        continue;
      }
      const firstFile =
        path.relative(path.dirname(this.rootFile), first.doc.file) || path.basename(first.doc.file);
      const where = first.inline ? `${firstFile} at ${formatDocPath(first.base)}` : firstFile;
      this.issues.add(
        'manifest.unique-name',
        candidate.doc,
        candidate.inline ? candidate.base : [...candidate.base, 'metadata', 'name'],
        `duplicate ${candidate.kind} name "${name}" (first declared in ${where})`,
      );
    }
  }

  /** Reports a problem at `specPath` inside a built primitive's spec. */
  private reportIn(primitive: AnyPrimitive, rule: RuleId, specPath: DocPath, message: string) {
    const where = this.locations.get(primitive);
    if (!where) return;
    this.issues.add(rule, where.doc, [...where.specAt, ...specPath], message);
  }

  /** Substitutes {identity_name}/{tenant_id} and resolves `~` and relative paths in place. */
  private resolvePaths(primitives: AnyPrimitive[], identity: Primitive<'Identity'>) {
    const vars = { identity_name: identity.name, tenant_id: this.options.tenantId };
    const resolve = (primitive: AnyPrimitive, at: DocPath, value: string): string => {
      const result = substitutePathVars(value, vars);
      if (!result.ok) {
        this.reportIn(
          primitive,
          'path.variable',
          at,
          `unknown path variable ${result.error.join(', ')} (use {identity_name} or {tenant_id})`,
        );
        return value;
      }
      return resolvePathValue(result.value, this.options.contextDir, this.options.homedir);
    };
    for (const primitive of primitives) {
      if (primitive.kind === 'Identity' && primitive.spec.context_files) {
        for (const [key, value] of Object.entries(primitive.spec.context_files)) {
          primitive.spec.context_files[key] = resolve(primitive, ['context_files', key], value);
        }
      } else if (primitive.kind === 'Memory') {
        primitive.spec.stores.forEach((store, index) => {
          if (store.path !== undefined)
            store.path = resolve(primitive, ['stores', index, 'path'], store.path);
        });
      } else if (primitive.kind === 'Sandbox' && primitive.spec.capabilities?.filesystem) {
        const fs = primitive.spec.capabilities.filesystem;
        fs.mount_paths?.forEach((mount, index) => {
          mount.path = resolve(
            primitive,
            ['capabilities', 'filesystem', 'mount_paths', index, 'path'],
            mount.path,
          );
        });
        if (fs.denied_paths) {
          fs.denied_paths = fs.denied_paths.map((denied, index) =>
            resolve(primitive, ['capabilities', 'filesystem', 'denied_paths', index], denied),
          );
        }
      } else if (primitive.kind === 'Telemetry') {
        primitive.spec.exporters.forEach((exporter, index) => {
          if (exporter.path !== undefined)
            exporter.path = resolve(primitive, ['exporters', index, 'path'], exporter.path);
        });
      }
    }
  }
}

/** What of a spec only 0.3.0 has: the WorldModel kind, a skill's world_model_ref, store fields. */
function introducedIn030(kind: PrimitiveKind, spec: unknown): { at: DocPath; what: string }[] {
  if (kind === 'WorldModel') return [{ at: [], what: 'the WorldModel kind' }];
  if (!isRecord(spec)) return [];
  if (kind === 'Skill' && spec.world_model_ref !== undefined)
    return [{ at: ['world_model_ref'], what: 'world_model_ref' }];
  if (kind === 'Telemetry')
    return Object.entries(TELEMETRY_FIELDS_0_3).flatMap(([group, fields]) => {
      const declared = spec[group];
      return isRecord(declared)
        ? fields
            .filter((field) => declared[field] !== undefined)
            .map((field) => ({ at: [group, field], what: `${group}.${field}` }))
        : [];
    });
  if (kind !== 'Memory' || !Array.isArray(spec.stores)) return [];
  return spec.stores.flatMap((store: unknown, index) =>
    isRecord(store)
      ? MEMORY_STORE_FIELDS_0_3.filter((field) => store[field] !== undefined).map((field) => ({
          at: ['stores', index, field],
          what: `the store field ${field}`,
        }))
      : [],
  );
}

/** Loads and validates a manifest; collects every error and warning instead of throwing. */
export function checkClaw(file: string, options?: LoadOptions): Promise<CheckResult> {
  return new ClawLoader(file, options).check();
}

/** Loads a manifest, or throws a ManifestError carrying every problem found. */
export async function loadClaw(file: string, options?: LoadOptions): Promise<ResolvedClaw> {
  const result = await checkClaw(file, options);
  if (!result.claw) throw new ManifestError(path.resolve(file), result.issues);
  return result.claw;
}
