/**
 * Manifest problems are values: each names the file, the path inside the document, the CKP rule
 * it breaks and where (line/column) when the YAML source is known.
 */
import { PincerError } from '../errors.js';

/** Every rule the loader and validator enforce, with the spec section it comes from. */
export const RULES = {
  'yaml.syntax': '§5 a primitive is a well-formed YAML or JSON document',
  'envelope.required': '§5 claw, kind and metadata.name are required',
  'envelope.protocol-version': '§1.4/§5 claw is a semver with the runtime major version',
  'envelope.kind': '§5 kind is one of the twelve kinds, and the one the slot expects',
  'envelope.introduced':
    '§1.4 a kind or field is used only by documents declaring the version that brought it',
  'envelope.name': '§5/§7 metadata.name is 1-63 letters, digits or "-"',
  'envelope.version': '§5 metadata.version is a semver',
  'manifest.kind': '§6 a root manifest has kind: Claw',
  'manifest.identity': '§5.1/§6 exactly one Identity',
  'manifest.providers': '§5.2/§6 at least one Provider',
  'manifest.unique-name': '§5 metadata.name is unique per kind within the manifest',
  'ref.entry': '§6 an entry is a file path, a glob, a claw:// URI or an inline: primitive',
  'ref.missing-file': '§6 a referenced file must exist',
  'ref.cycle': '§6/§8 references must not form a cycle',
  'ref.unresolved': '§8 INIT.4 a reference names a primitive of this manifest',
  'uri.grammar': '§7 claw:// URIs follow the ABNF grammar',
  'uri.registry': '§7 registry URIs need a configured registry',
  'uri.kind': '§7 a URI names the kind its slot expects',
  'schema.required': '§5-6.1 required fields per kind (file and inline)',
  'schema.type': '§5 field types and enumerations',
  'schema.unknown-field': '§5 no fields beyond the published schema',
  'identity.personality': '§5.1 personality is a non-empty string',
  'provider.auth-secret-ref': '§5.2 auth.secret_ref is required unless auth.type is none',
  'channel.access-control': '§5.3 access-control mode and fields agree',
  'channel.trigger': '§5.3 event channels declare the trigger field of their type',
  'channel.pincer': 'Pincer: x-pincer settings fit the channel type',
  'swarm.tree': "Pincer: a hierarchical swarm's roles form a tree (leader, sub-leader, worker)",
  'swarm.pincer': 'Pincer: x-pincer settings fit the swarm topology',
  'tool.description-or-mcp': '§5.4 description and input_schema are required without mcp_source',
  'tool.input-schema': '§5.4 input_schema is a valid JSON Schema object',
  'tool.mcp-uri': '§5.4 the mcp:// scheme is reserved; use mcp_source with stdio:/// or https://',
  'policy.rules': '§5.8 rules has at least one entry',
  'memory.stores': '§5.6/§6.1 stores has at least one entry',
  'telemetry.exporters': '§5.10 exporters has at least one entry',
  'telemetry.exporter-fields': '§5.10 otlp/webhook need endpoint, file/sqlite need path',
  'telemetry.sampling': '§5.10 sampling.rate is within 0.0-1.0',
  'path.variable': '§5.6 path variables are {identity_name} or {tenant_id}',
} as const;
export type RuleId = keyof typeof RULES;

export type DocPath = ReadonlyArray<string | number>;

export interface ManifestIssue {
  rule: RuleId;
  severity: 'error' | 'warning';
  /** Absolute path of the file the problem is in. */
  file: string;
  /** Where in that document, e.g. `spec.providers[0].inline.auth`. */
  path: string;
  message: string;
  line?: number;
  column?: number;
}

/** `spec.providers[0].inline` from `['spec', 'providers', 0, 'inline']`. */
export function formatDocPath(path: DocPath): string {
  let out = '';
  for (const part of path) {
    out += typeof part === 'number' ? `[${part}]` : out ? `.${part}` : part;
  }
  return out || '(document)';
}

/** One line per issue: `file:line:col: path: message [rule]`. */
export function formatIssue(issue: ManifestIssue, relativeTo?: (file: string) => string): string {
  const file = relativeTo ? relativeTo(issue.file) : issue.file;
  const where = issue.line ? `${file}:${issue.line}:${issue.column ?? 1}` : file;
  const tag = issue.severity === 'warning' ? 'warning: ' : '';
  return `${where}: ${tag}${issue.path}: ${issue.message} [${issue.rule}]`;
}

/** Thrown by `loadClaw` when a manifest has errors; carries every issue, not just the first. */
export class ManifestError extends PincerError {
  readonly code = 'manifest_invalid';
  constructor(
    readonly file: string,
    readonly issues: ManifestIssue[],
  ) {
    const errors = issues.filter((issue) => issue.severity === 'error');
    super(
      'invalid_request',
      `${file}: ${errors.length} manifest error${errors.length === 1 ? '' : 's'}\n` +
        errors.map((issue) => `  ${formatIssue(issue)}`).join('\n'),
    );
    this.name = 'ManifestError';
  }
}
