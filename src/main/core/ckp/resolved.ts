/**
 * The resolved manifest: every reference followed, every primitive validated and named, with
 * canonical URIs and source locations. This is what the rest of Pincer reads its settings from.
 */
import type { Conformance } from './conformance.js';
import type { ManifestIssue } from './issues.js';
import type { PolicyRule, PrimitiveKind, SpecByKind } from './schemas.js';

export interface PrimitiveSource {
  /** Absolute path of the file the primitive was written in. */
  file: string;
  /** Its place in that file: `(document)` for a primitive file, else e.g. `spec.tools[2].inline`. */
  path: string;
  /** Index of the document in a multi-document file. */
  document: number;
  inline: boolean;
}

export interface Primitive<K extends PrimitiveKind = PrimitiveKind> {
  kind: K;
  name: string;
  version: string;
  /** Canonical local URI, `claw://local/{kind}/{name}@{version}`. */
  uri: string;
  /** The `claw` protocol version the primitive declared (inline: the manifest's). */
  protocol: string;
  labels: Record<string, string>;
  /** Untrusted and informational: never read for a runtime decision (§5). */
  annotations: Record<string, unknown>;
  spec: SpecByKind[K];
  source: PrimitiveSource;
  /** True when the manifest gave no name and the loader generated one (§6.1). */
  generatedName: boolean;
}

export interface ResolvedClaw {
  file: string;
  dir: string;
  protocol: string;
  name: string;
  version: string;
  description?: string;
  labels: Record<string, string>;
  annotations: Record<string, unknown>;
  identity: Primitive<'Identity'>;
  providers: Primitive<'Provider'>[];
  channels: Primitive<'Channel'>[];
  tools: Primitive<'Tool'>[];
  skills: Primitive<'Skill'>[];
  policies: Primitive<'Policy'>[];
  memory?: Primitive<'Memory'>;
  sandbox?: Primitive<'Sandbox'>;
  swarm?: Primitive<'Swarm'>;
  telemetry?: Primitive<'Telemetry'>;
  /** 0.3.0: predictive planning surfaces, consulted before a risky tool call. */
  worldModels: Primitive<'WorldModel'>[];
  conformance: Conformance;
  /** Non-fatal findings (newer minor protocol version, globs matching nothing, ...). */
  warnings: ManifestIssue[];
}

export type AnyPrimitive = { [K in PrimitiveKind]: Primitive<K> }[PrimitiveKind];

/** Every primitive of the manifest, in manifest order. */
export function allPrimitives(claw: ResolvedClaw): AnyPrimitive[] {
  return [
    claw.identity,
    ...claw.providers,
    ...claw.channels,
    ...claw.tools,
    ...claw.skills,
    ...(claw.memory ? [claw.memory] : []),
    ...(claw.sandbox ? [claw.sandbox] : []),
    ...claw.policies,
    ...(claw.swarm ? [claw.swarm] : []),
    ...(claw.telemetry ? [claw.telemetry] : []),
    ...claw.worldModels,
  ];
}

/** The name a reference field points at: a plain name or a claw:// URI's name. */
export function refName(ref: string): string {
  if (!ref.startsWith('claw://')) return ref;
  const last = ref.slice(ref.lastIndexOf('/') + 1);
  const at = last.indexOf('@');
  return at < 0 ? last : last.slice(0, at);
}

export function findProvider(claw: ResolvedClaw, ref: string) {
  return claw.providers.find((provider) => provider.name === refName(ref));
}

export function findTool(claw: ResolvedClaw, ref: string) {
  return claw.tools.find((tool) => tool.name === refName(ref));
}

/** The first declared provider is the primary one. */
export function primaryProvider(claw: ResolvedClaw): Primitive<'Provider'> {
  const [primary] = claw.providers;
  if (!primary) throw new Error('a resolved manifest always has a provider');
  return primary;
}

/**
 * The order in which providers are tried for a request that starts at `start`: the provider,
 * then its `fallback` entries in array order, never skipping one (§5.2). Cycles are rejected at
 * load time, so this terminates.
 */
export function providerChain(
  claw: ResolvedClaw,
  start: Primitive<'Provider'> = primaryProvider(claw),
): Primitive<'Provider'>[] {
  const chain = [start];
  for (const { provider_ref } of start.spec.fallback ?? []) {
    const next = findProvider(claw, provider_ref);
    if (next && !chain.includes(next)) chain.push(next);
  }
  return chain;
}

export interface EffectivePolicyRule extends PolicyRule {
  /** Name of the Policy primitive the rule came from. */
  policy: string;
}

/**
 * All policy rules as ONE ordered list: first policy's rules, then the second's (§5.8). An
 * evaluator applies the first match, and denies when nothing matches.
 */
export function policyRules(claw: ResolvedClaw): EffectivePolicyRule[] {
  return claw.policies.flatMap((policy) =>
    policy.spec.rules.map((rule) => ({ ...rule, policy: policy.name })),
  );
}

/** The sandbox a tool runs in: its sandbox_ref, else the manifest's sandbox, else none declared. */
export function sandboxFor(
  claw: ResolvedClaw,
  tool: Primitive<'Tool'>,
): Primitive<'Sandbox'> | undefined {
  const ref = tool.spec.sandbox_ref;
  if (ref && claw.sandbox?.name !== refName(ref)) return undefined;
  return claw.sandbox;
}

/** A tool's category label (policies with `scope: category` match on it). */
export function toolCategory(tool: Primitive<'Tool'>): string | undefined {
  return tool.labels.category;
}

/** The identity's autonomy: `supervised` when the manifest leaves it out (§5.1). */
export function autonomyOf(claw: ResolvedClaw) {
  return claw.identity.spec.autonomy;
}

/** True for providers Pincer runs in-process (node-llama-cpp) rather than over HTTP. */
export function isLocalEngineProvider(provider: Primitive<'Provider'>): boolean {
  return provider.spec.protocol === 'custom' && provider.spec.endpoint.startsWith('local://');
}
