/**
 * Builds the CKP manifests tests write (a `claw.yaml` with inline primitives), typed by the
 * loader's own schemas, so a test names only what it is about and a field the loader would
 * refuse fails the typecheck instead of the test; and the shipped default manifest, edited as a
 * YAML document, for tests of what ships. The loader's own tests keep their YAML: there the text
 * is what is tested.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type Document, parseDocument, stringify } from 'yaml';
import type { z } from 'zod';
import type {
  channelSpec,
  identitySpec,
  memorySpec,
  policySpec,
  providerSpec,
  sandboxSpec,
  skillSpec,
  swarmSpec,
  telemetrySpec,
  toolSpec,
  worldModelSpec,
} from '../../src/main/core/ckp/schemas.js';

/** An inline primitive: its spec's fields, and a name the loader generates when absent. */
type Inline<Schema extends z.ZodType> = z.input<Schema> & { name?: string };

export type IdentityInline = Inline<typeof identitySpec>;
export type ProviderInline = Inline<typeof providerSpec>;
export type ToolInline = Inline<typeof toolSpec>;
export type PolicyInline = Inline<typeof policySpec>;
export type SandboxInline = Inline<typeof sandboxSpec>;
export type SwarmInline = Inline<typeof swarmSpec>;
export type TelemetryInline = Inline<typeof telemetrySpec>;
export type WorldModelInline = Inline<typeof worldModelSpec>;
export type TelemetryExporter = TelemetryInline['exporters'][number];

export interface ClawParts {
  /** The protocol version the manifest declares (default 0.2.0). */
  claw?: string;
  /** metadata.name. */
  name: string;
  /** Default: {@link TEST_IDENTITY}. */
  identity?: IdentityInline;
  /** Default: the one {@link STUB_PROVIDER}. */
  providers?: ProviderInline[];
  channels?: Inline<typeof channelSpec>[];
  tools?: ToolInline[];
  skills?: Inline<typeof skillSpec>[];
  memory?: Inline<typeof memorySpec>;
  sandbox?: SandboxInline;
  policies?: PolicyInline[];
  swarm?: SwarmInline;
  telemetry?: TelemetryInline;
  world_models?: WorldModelInline[];
}

/** An identity that acts without asking, as most runs under test do. */
export const TEST_IDENTITY: IdentityInline = {
  personality: 'A test agent.',
  autonomy: 'autonomous',
};

/** A provider nothing listens for (port 9, discard): for runs whose model is injected. */
export const STUB_PROVIDER: ProviderInline = {
  protocol: 'openai-compatible',
  endpoint: 'http://127.0.0.1:9/v1',
  model: 'none',
  auth: { type: 'none' },
};

/** A policy that allows every call (so the test sees the tool, not an approval). */
export const OPEN_POLICY: PolicyInline = {
  name: 'open',
  rules: [{ id: 'allow-all', action: 'allow', scope: 'all' }],
};

/** A tool served by an MCP server started as `node <script>`. */
export function mcpTool(
  name: string,
  script: string,
  toolName: string,
  more: Omit<ToolInline, 'name' | 'mcp_source'> = {},
): ToolInline {
  return {
    name,
    ...more,
    mcp_source: { uri: `stdio://${process.execPath} ${script}`, tool_name: toolName },
  };
}

const SLOTS = [
  'identity',
  'providers',
  'channels',
  'tools',
  'skills',
  'memory',
  'sandbox',
  'policies',
  'swarm',
  'telemetry',
  'world_models',
] as const satisfies ReadonlyArray<keyof ClawParts>;

/** The manifest as a plain document (every primitive inline), ready for YAML. */
export function clawManifest(parts: ClawParts): Record<string, unknown> {
  const filled: ClawParts = {
    ...parts,
    identity: parts.identity ?? TEST_IDENTITY,
    providers: parts.providers ?? [STUB_PROVIDER],
  };
  const spec: Record<string, unknown> = {};
  for (const slot of SLOTS) {
    const value = filled[slot];
    if (value === undefined) continue;
    spec[slot] = Array.isArray(value) ? value.map((inline) => ({ inline })) : { inline: value };
  }
  return { claw: parts.claw ?? '0.2.0', kind: 'Claw', metadata: { name: parts.name }, spec };
}

export function clawYaml(parts: ClawParts): string {
  return stringify(clawManifest(parts), { lineWidth: 0 });
}

/** Writes the manifest to `dir/file` and returns that path. */
export async function writeClaw(
  dir: string,
  parts: ClawParts,
  file = 'claw.yaml',
): Promise<string> {
  const target = path.join(dir, file);
  await writeFile(target, clawYaml(parts));
  return target;
}

const SHIPPED = path.resolve(import.meta.dirname, '../../resources/claw.yaml');

export type YamlDocument = ReturnType<typeof parseDocument>;

/** The shipped default manifest (resources/claw.yaml) as a YAML document to edit. */
export async function shippedClaw(): Promise<YamlDocument> {
  return parseDocument(await readFile(SHIPPED, 'utf8'));
}

/**
 * Puts the user's own policy rules where the shipped manifest's comment says they go: in its
 * first policy, before the rule `before` (by default the one that asks for network access).
 */
export function addUserRules(
  doc: Document,
  rules: PolicyInline['rules'],
  before = 'approve-network',
): void {
  const list = doc.getIn(['spec', 'policies', 0, 'inline', 'rules']) as { items: unknown[] };
  const at = (list.items as Array<{ get(key: string): unknown }>).findIndex(
    (rule) => rule.get('id') === before,
  );
  if (at < 0) throw new Error(`the shipped manifest has no rule "${before}"`);
  list.items.splice(at, 0, ...rules.map((rule) => doc.createNode(rule)));
}

/** Writes a YAML document to `dir/file` and returns that path. */
export async function writeDocument(
  dir: string,
  doc: Document,
  file = 'claw.yaml',
): Promise<string> {
  const target = path.join(dir, file);
  await writeFile(target, doc.toString());
  return target;
}
