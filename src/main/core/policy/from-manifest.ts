/**
 * The manifest's governance as live objects: the policy engine over its rules and the
 * identity's autonomy, the scanner configured by the first policy's screening settings, an
 * approval broker and the audit log. What the runtime needs from the policy module, in one place.
 */
import os from 'node:os';
import path from 'node:path';
import { autonomyOf, policyRules, type ResolvedClaw, toolCategory } from '../ckp/index.js';
import type { Redactor } from '../redaction/index.js';
import { ApprovalBroker } from './broker.js';
import { PolicyEngine } from './engine.js';
import type { ToolFacts } from './rules.js';
import { ContentScanner, type InjectionAction, type SecretAction } from './scanner.js';

export interface Governance {
  /** Spending caps across runs, from the policies' `rate_limits` (the strictest wins). */
  caps: { tokensPerHour?: number; costPerDayUsd?: number };
  policy: PolicyEngine;
  broker: ApprovalBroker;
  scanner: ContentScanner;
  workspace: string;
}

export interface GovernanceOptions {
  dataDir: string;
  /** Facts of the tools the registry knows; manifest tools are described from the manifest. */
  facts?: (name: string) => ToolFacts | undefined;
  /** The folder the agent works in, when the user chose one (else one per identity in the data dir). */
  workspace?: string;
  /** The agent's redactor, which the scanner screens tool output with. */
  redactor?: Redactor;
}

/** Manifest-declared tools: category from the `category` label, tier from the annotations. */
export function manifestToolFacts(claw: ResolvedClaw): Map<string, ToolFacts> {
  const facts = new Map<string, ToolFacts>();
  for (const tool of claw.tools) {
    const annotations = { ...tool.spec.annotations } as Record<string, unknown>;
    const tier = annotations.destructiveHint
      ? 'unsafe'
      : annotations.readOnlyHint
        ? 'safe'
        : 'guarded';
    facts.set(tool.name, {
      name: tool.name,
      category: toolCategory(tool),
      annotations,
      tier,
      labels: Object.values(tool.labels),
    });
  }
  return facts;
}

export function governanceFromManifest(claw: ResolvedClaw, options: GovernanceOptions): Governance {
  const [first] = claw.policies;
  const spec = first?.spec;
  const scanner = new ContentScanner({
    injectionAction: (spec?.prompt_injection?.action ?? 'warn') as InjectionAction,
    secretAction: (spec?.secret_scanning?.enabled === false
      ? 'warn'
      : (spec?.secret_scanning?.action ?? 'redact')) as SecretAction,
    maxBytes: claw.sandbox?.spec.resource_limits?.max_output_bytes,
    redactor: options.redactor,
  });
  const broker = new ApprovalBroker();
  const workspace =
    options.workspace ?? path.join(options.dataDir, 'workspace', claw.identity.name);
  const declared = manifestToolFacts(claw);
  const limits = claw.policies.map((p) => p.spec.rate_limits ?? {});
  const strictest = (values: Array<number | undefined>) => {
    const set = values.filter((v): v is number => v !== undefined);
    return set.length ? Math.min(...set) : undefined;
  };
  const policy = new PolicyEngine({
    rules: policyRules(claw),
    autonomy: autonomyOf(claw),
    facts: (name) => options.facts?.(name) ?? declared.get(name),
    context: { workspace, home: os.homedir() },
    broker,
    toolCallsPerMinute: strictest(limits.map((l) => l.tool_calls_per_minute)),
  });
  const caps = {
    tokensPerHour: strictest(limits.map((l) => l.tokens_per_hour)),
    costPerDayUsd: strictest(limits.map((l) => l.cost_per_day_usd)),
  };
  return { caps, policy, broker, scanner, workspace };
}

/**
 * How long a person has to fill a server's form: the shortest `approval.timeout_seconds` the
 * manifest's rules declare (what it allows a person to take for an answer), else undefined
 * (the approvals' default applies).
 */
export function inputTimeoutMs(claw: ResolvedClaw): number | undefined {
  const declared = policyRules(claw)
    .map((rule) => rule.approval?.timeout_seconds)
    .filter((seconds): seconds is number => seconds !== undefined);
  return declared.length ? Math.min(...declared) * 1000 : undefined;
}
