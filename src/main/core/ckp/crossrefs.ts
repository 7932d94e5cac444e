/**
 * Manifest-wide checks of §8 INIT step 4: references between primitives name primitives that
 * exist (of the right kind), and provider fallbacks or composite tools do not loop.
 */
import type { DocPath, RuleId } from './issues.js';
import type { AnyPrimitive, Primitive } from './resolved.js';
import { parseClawUri, type UriKind } from './uri.js';

export type RefReport = (
  rule: RuleId,
  primitive: AnyPrimitive,
  specPath: DocPath,
  message: string,
) => void;

export function checkManifestRefs(primitives: AnyPrimitive[], report: RefReport) {
  const names = (kind: AnyPrimitive['kind']) =>
    new Set(primitives.filter((p) => p.kind === kind).map((p) => p.name));
  const providers = names('Provider');
  const tools = names('Tool');
  const skills = names('Skill');
  const sandboxes = names('Sandbox');
  const policies = names('Policy');
  const memories = names('Memory');
  const worldModels = names('WorldModel');
  // An MCP bridge without tool_name serves a whole server, whose tools are known only at start.
  const openMcpBridge = primitives.some(
    (p) => p.kind === 'Tool' && p.spec.mcp_source && !p.spec.mcp_source.tool_name,
  );

  const check = (
    owner: AnyPrimitive,
    at: DocPath,
    ref: string,
    kind: UriKind,
    known: Set<string>,
  ): string | undefined => {
    let name = ref;
    if (ref.startsWith('claw://')) {
      const parsed = parseClawUri(ref);
      if (!parsed.ok) {
        report('uri.grammar', owner, at, `invalid claw URI "${ref}": ${parsed.error}`);
        return undefined;
      }
      if (parsed.value.form === 'registry') {
        report('uri.registry', owner, at, `"${ref}" needs a CKP registry, and none is configured`);
        return undefined;
      }
      if (parsed.value.kind !== kind) {
        report(
          'uri.kind',
          owner,
          at,
          `"${ref}" names a ${parsed.value.kind}, but a ${kind} is expected`,
        );
        return undefined;
      }
      name = parsed.value.name;
    }
    if (known.has(name)) return name;
    if (kind === 'tool' && openMcpBridge) return name;
    const list = [...known].join(', ') || 'none';
    report(
      'ref.unresolved',
      owner,
      at,
      `no ${kind} named "${name}" in this manifest (declared: ${list})`,
    );
    return undefined;
  };

  const fallbacks = new Map<string, string[]>();
  const compositeSkill = new Map<string, string>();
  const skillTools = new Map<string, string[]>();
  for (const p of primitives) {
    switch (p.kind) {
      case 'Provider': {
        const chain: string[] = [];
        p.spec.fallback?.forEach((entry, i) => {
          const name = check(
            p,
            ['fallback', i, 'provider_ref'],
            entry.provider_ref,
            'provider',
            providers,
          );
          if (name) chain.push(name);
        });
        fallbacks.set(p.name, chain);
        break;
      }
      case 'Tool': {
        if (p.spec.sandbox_ref) check(p, ['sandbox_ref'], p.spec.sandbox_ref, 'sandbox', sandboxes);
        if (p.spec.policy_ref) check(p, ['policy_ref'], p.spec.policy_ref, 'policy', policies);
        if (p.spec.skill_ref) {
          const skill = check(p, ['skill_ref'], p.spec.skill_ref, 'skill', skills);
          if (skill && p.spec.composite) compositeSkill.set(p.name, skill);
        }
        break;
      }
      case 'Skill': {
        const needed: string[] = [];
        p.spec.tools_required.forEach((ref, i) => {
          const name = check(p, ['tools_required', i], ref, 'tool', tools);
          if (name) needed.push(name);
        });
        skillTools.set(p.name, needed);
        // §5.5: a validator MUST reject a dangling world_model_ref.
        if (p.spec.world_model_ref)
          check(p, ['world_model_ref'], p.spec.world_model_ref, 'world-model', worldModels);
        break;
      }
      case 'WorldModel': {
        if (p.spec.memory_ref) check(p, ['memory_ref'], p.spec.memory_ref, 'memory', memories);
        if (p.spec.constraints?.policy_ref)
          check(
            p,
            ['constraints', 'policy_ref'],
            p.spec.constraints.policy_ref,
            'policy',
            policies,
          );
        const { type, ref } = p.spec.backend;
        if (type === 'tool') check(p, ['backend', 'ref'], ref, 'tool', tools);
        if (type === 'provider') check(p, ['backend', 'ref'], ref, 'provider', providers);
        break;
      }
      case 'Memory':
        p.spec.stores.forEach((store, i) => {
          if (store.embedding) {
            check(
              p,
              ['stores', i, 'embedding', 'provider_ref'],
              store.embedding.provider_ref,
              'provider',
              providers,
            );
          }
        });
        break;
      default:
        break;
    }
  }

  for (const p of primitives) {
    if (p.kind === 'Provider') checkFallbackCycle(p, fallbacks, report);
    if (p.kind === 'Tool') {
      const skill = compositeSkill.get(p.name);
      if (skill && skillTools.get(skill)?.includes(p.name)) {
        report(
          'ref.cycle',
          p,
          ['skill_ref'],
          `composite tool "${p.name}" wraps skill "${skill}", which requires "${p.name}" again`,
        );
      }
    }
  }
}

function checkFallbackCycle(
  start: Primitive<'Provider'>,
  fallbacks: Map<string, string[]>,
  report: RefReport,
) {
  // Depth-first from `start`; a path that comes back to `start` is a loop it belongs to.
  const walk = (name: string, trail: string[]): string[] | undefined => {
    for (const next of fallbacks.get(name) ?? []) {
      if (next === start.name) return [...trail, next];
      if (trail.includes(next)) continue;
      const found = walk(next, [...trail, next]);
      if (found) return found;
    }
    return undefined;
  };
  const loop = walk(start.name, [start.name]);
  if (!loop) return;
  const index = (start.spec.fallback ?? []).findIndex((f) =>
    f.provider_ref.endsWith(loop[1] ?? ''),
  );
  report(
    'ref.cycle',
    start,
    ['fallback', Math.max(index, 0), 'provider_ref'],
    `provider fallback chain loops: ${loop.join(' → ')}`,
  );
}
