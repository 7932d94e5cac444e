/**
 * `pincer manifest show`: the fully resolved manifest as one document, every primitive with its
 * canonical URI and source. Secrets appear only as the names they are stored under.
 */
import path from 'node:path';
import { formatIssue, type ManifestIssue } from './issues.js';
import { type AnyPrimitive, allPrimitives, type ResolvedClaw } from './resolved.js';

function primitiveView(primitive: AnyPrimitive, baseDir: string) {
  const { source } = primitive;
  const file = path.relative(baseDir, source.file) || path.basename(source.file);
  return {
    uri: primitive.uri,
    source: `${file}${source.inline ? ` ${source.path}` : ''}${source.document > 0 ? ` (document ${source.document + 1})` : ''}`,
    kind: primitive.kind,
    claw: primitive.protocol,
    metadata: {
      name: primitive.name,
      version: primitive.version,
      ...(primitive.generatedName ? { generated_name: true } : {}),
      ...(Object.keys(primitive.labels).length ? { labels: primitive.labels } : {}),
      ...(Object.keys(primitive.annotations).length ? { annotations: primitive.annotations } : {}),
    },
    spec: primitive.spec,
  };
}

/** A plain object of the resolved manifest, for JSON output and for the YAML view. */
export function resolvedView(claw: ResolvedClaw) {
  const view = (p: AnyPrimitive) => primitiveView(p, claw.dir);
  const primitives = allPrimitives(claw);
  return {
    file: claw.file,
    claw: claw.protocol,
    kind: 'Claw',
    metadata: {
      name: claw.name,
      version: claw.version,
      ...(claw.description ? { description: claw.description } : {}),
      ...(Object.keys(claw.labels).length ? { labels: claw.labels } : {}),
    },
    conformance: {
      level: claw.conformance.level,
      label: claw.conformance.label,
      primitives: claw.conformance.primitives,
      missing_for_next_level: claw.conformance.missingForNext,
    },
    secrets: primitives.flatMap((p) =>
      secretRefs(p).map((ref) => ({ uri: p.uri, secret_ref: ref })),
    ),
    spec: {
      identity: view(claw.identity),
      providers: claw.providers.map(view),
      channels: claw.channels.map(view),
      tools: claw.tools.map(view),
      skills: claw.skills.map(view),
      ...(claw.memory ? { memory: view(claw.memory) } : {}),
      ...(claw.sandbox ? { sandbox: view(claw.sandbox) } : {}),
      policies: claw.policies.map(view),
      ...(claw.swarm ? { swarm: view(claw.swarm) } : {}),
      ...(claw.telemetry ? { telemetry: view(claw.telemetry) } : {}),
      ...(claw.worldModels.length ? { world_models: claw.worldModels.map(view) } : {}),
    },
  };
}

/** The secret NAMES a primitive needs (values are never read by the manifest layer). */
export function secretRefs(primitive: AnyPrimitive): string[] {
  switch (primitive.kind) {
    case 'Provider':
    case 'Channel':
      return primitive.spec.auth.secret_ref ? [primitive.spec.auth.secret_ref] : [];
    case 'Telemetry':
      return primitive.spec.exporters.flatMap((e) =>
        e.auth?.secret_ref ? [e.auth.secret_ref] : [],
      );
    case 'Swarm': {
      const nats = primitive.spec.coordination.nats;
      return [nats?.token_ref, nats?.password_ref].filter((ref): ref is string => Boolean(ref));
    }
    default:
      return [];
  }
}

/** Every secret name the manifest refers to (providers, channels, telemetry exporters, swarm). */
export function secretNamesOf(claw: ResolvedClaw): string[] {
  return allPrimitives(claw).flatMap(secretRefs);
}

export async function renderResolvedYaml(claw: ResolvedClaw, header?: string): Promise<string> {
  // yaml loads for this view only: a run reads manifests through the parsed-source cache.
  const { stringify } = await import('yaml');
  const body = stringify(resolvedView(claw), { lineWidth: 100 });
  return `${header ? `# ${header}\n` : ''}${body}`;
}

export function renderIssues(issues: ManifestIssue[], cwd: string): string {
  return issues
    .map((issue) => formatIssue(issue, (file) => path.relative(cwd, file) || file))
    .join('\n');
}
