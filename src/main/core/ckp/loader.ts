/**
 * Loads a root `kind: Claw` manifest (§6): follows file references, globs, claw:// URIs and
 * inline primitives, validates every primitive and the manifest as a whole, and collects every
 * problem with its file, document path, rule and line.
 */
import os from 'node:os';
import path from 'node:path';
import type { z } from 'zod';
import { computeConformance } from './conformance.js';
import { checkManifestRefs } from './crossrefs.js';
import {
  getAt,
  IssueList,
  isRecord,
  type Raw,
  reportZod,
  withoutUnknownKeys,
} from './issue-list.js';
import {
  type DocPath,
  formatDocPath,
  ManifestError,
  type ManifestIssue,
  type RuleId,
} from './issues.js';
import { loadSchemaValidator, needsValidator, type SchemaVerdicts } from './json-schema-check.js';
import { type Candidate, LOWER, ManifestReferences } from './manifest-references.js';
import { resolvePathValue, substitutePathVars } from './path-vars.js';
import { checkProtocol, introducedIn030 } from './protocol-fields.js';
import type { AnyPrimitive, Primitive, ResolvedClaw } from './resolved.js';
import { checkSpecRules } from './rules.js';
import {
  ALL_KINDS,
  clawMetadataSchema,
  KEBAB_NAME,
  MANIFEST_SLOTS,
  type ManifestSlot,
  metadataSchema,
  type PrimitiveKind,
  SPEC_SCHEMAS,
} from './schemas.js';
import { keepSpec, type SpecParses, specKey } from './spec-parses.js';
import { protocolHas } from './version.js';
import type { SourceCache, SourceDocument } from './yaml-source.js';

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
  private readonly references: ManifestReferences;

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
    this.references = new ManifestReferences(this.issues, this.rootFile, this.options);
  }

  async check(): Promise<CheckResult> {
    const claw = await this.run();
    return { ...(claw && !this.issues.hasErrors ? { claw } : {}), issues: this.issues.items };
  }

  private async run(): Promise<ResolvedClaw | undefined> {
    const rootDoc = await this.references.readDocuments(this.rootFile, undefined, []);
    if (!rootDoc) return undefined;
    if (rootDoc.length !== 1 || !rootDoc[0]) {
      const first = rootDoc[0];
      if (first) {
        this.issues.add('manifest.kind', first, [], 'a root manifest is one document, not several');
      }
      return undefined;
    }
    this.root = rootDoc[0];
    this.references.root = this.root;
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
      candidates.push(...(await this.references.expandSlot(slot, spec[slot])));
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
