/**
 * Pincer's own policy rules, declared like a manifest's and applied on top of them: when one
 * matches a call with side effects, the call asks a person even where the manifest's rules and
 * the autonomy level would let it run, and a session-wide approval of the tool does not cover it.
 * A guard only makes a decision stricter: a manifest's deny stays a deny.
 *
 * They match on real paths (every link on the way resolved), so a link or `..` spelling of a
 * guarded file is the same file.
 */
import type { EffectivePolicyRule } from '../ckp/index.js';
import { realPathOf } from '../workspace-fs/index.js';
import { firstMatch, type RuleContext, type ToolFacts } from './rules.js';

const identityFile = (file: string): EffectivePolicyRule => ({
  policy: 'pincer',
  id: `identity-${file.toLowerCase().replace('.md', '')}`,
  action: 'require-approval',
  scope: 'all',
  conditions: { path_within: `\${workspace}/${file}` },
  reason: `${file} goes into every later system prompt: a tool may change it only with your approval, every time`,
});

/** The identity files shape every system prompt: a tool writing one is a persistent injection. */
export const GUARD_RULES: readonly EffectivePolicyRule[] = [
  identityFile('SOUL.md'),
  identityFile('USER.md'),
];

/** The first guard rule that matches any path the call touches, judged on real paths. */
export async function guardFor(
  tool: ToolFacts,
  paths: readonly string[],
  context: RuleContext,
  rules: readonly EffectivePolicyRule[] = GUARD_RULES,
): Promise<EffectivePolicyRule | undefined> {
  if (paths.length === 0) return undefined;
  const real = (p: string) => realPathOf(p).catch(() => p);
  const workspace = await real(context.workspace);
  // Declared writes are already among the paths; each path is judged on its own.
  const facts = { ...tool, writes: undefined };
  for (const path of await Promise.all(paths.map(real))) {
    const match = firstMatch(rules, facts, { paths: [path] }, { ...context, workspace });
    if (match) return match.rule;
  }
  return undefined;
}
