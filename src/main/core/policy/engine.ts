/**
 * The policy engine: decides every tool call before it runs, from the manifest's rules (first
 * match wins, no match denies), the identity's autonomy level and the tool's safety tier.
 *
 * - observer: no tools at all.
 * - supervised: a call with side effects needs a person's approval even where a rule allows it.
 * - autonomous: the rules alone decide.
 * - Unsafe tools ask every time, whatever the level; Guarded ones can be approved once for the
 *   rest of a session ("approve for session"), scoped to the arguments the tool declares
 *   (session-scope.ts: the exact argv for sys/exec). A destructive command never is.
 * - A command whose program would run another one (program-table.ts: `git -c alias.x=!cmd`,
 *   `sed 1e…`) is never allowed by a rule about the command: it asks, never for the session.
 * - Pincer's guard rules (guards.ts: writes to SOUL.md/USER.md) ask every time, whatever the
 *   level and the manifest's rules, unless a manifest rule denies the call outright.
 */
import path from 'node:path';
import type { Autonomy } from '../../../shared/ipc-schemas.js';
import type { ToolCall } from '../../../shared/messages.js';
import type { EffectivePolicyRule } from '../ckp/index.js';
import type { CapabilityGrant } from '../terms.js';
import type { ApprovalBroker } from './broker.js';
import { isDestructiveCall, runsReasons } from './command-risk.js';
import { guardFor } from './guards.js';
import type { PolicyContext, PolicyDecision, PolicyHook } from './hooks.js';
import { firstMatch, type RuleContext, type ToolFacts } from './rules.js';
import { sessionScopeOf } from './session-scope.js';

/** The one autonomy level type is the IPC contract's, which the settings surfaces also show. */
export type { Autonomy };

export interface PolicyEngineOptions {
  rules: readonly EffectivePolicyRule[];
  autonomy: Autonomy;
  /** What the registry knows about a tool; unknown tools are treated as Unsafe. */
  facts: (name: string) => ToolFacts | undefined;
  context: RuleContext;
  /** Where session-wide approvals are remembered. */
  broker?: ApprovalBroker;
  toolCallsPerMinute?: number;
  /** Rules applied on top of the manifest's, stricter only (default GUARD_RULES). */
  guards?: readonly EffectivePolicyRule[];
  now?: () => number;
}

export class PolicyEngine implements PolicyHook {
  constructor(
    private readonly options: PolicyEngineOptions,
    /** The rate window, shared by the engines of one manifest whatever their autonomy. */
    private readonly recentCalls: number[] = [],
  ) {}

  /** The same rules, facts, broker and rate limit at another autonomy level. */
  withAutonomy(autonomy: Autonomy): PolicyEngine {
    return new PolicyEngine({ ...this.options, autonomy }, this.recentCalls);
  }

  async decide(call: ToolCall, context: PolicyContext): Promise<PolicyDecision> {
    const { options } = this;
    if (options.autonomy === 'observer') {
      return {
        action: 'deny',
        reason: 'this identity is an observer: it may not use tools',
        rule: 'autonomy:observer',
      };
    }
    const limited = this.rateLimited();
    if (limited)
      return { action: 'deny', reason: limited, rule: 'rate_limits.tool_calls_per_minute' };

    const facts = options.facts(call.name) ?? { name: call.name, tier: 'unsafe' as const };
    const match = firstMatch(options.rules, facts, call.input, options.context);
    if (!match)
      return { action: 'deny', reason: 'no policy rule matches this call (default deny)' };
    const { rule } = match;
    const ruleId = `${rule.policy}/${rule.id}`;
    if (rule.action === 'deny')
      return { action: 'deny', reason: rule.reason ?? `rule ${rule.id}`, rule: ruleId };
    const guard = context.readOnly
      ? undefined
      : await guardFor(facts, match.paths, options.context, options.guards);

    const grant: CapabilityGrant = {
      scope: 'step',
      tool: call.name,
      ...(match.paths.length ? { paths: match.paths } : {}),
      ...(match.hosts.length ? { hosts: match.hosts } : {}),
      ...(match.commands.length ? { commands: match.commands } : {}),
      expiresWith: context.runId,
    };
    // What the program would run besides itself: no rule about the command saw that.
    const runs = runsReasons(call.input);
    const runsNote = runs.length ? `it runs another program: ${runs.join('; ')}` : '';
    const sessionApprovable =
      facts.tier !== 'unsafe' && !isDestructiveCall(call.input) && runs.length === 0;
    const scope = sessionScopeOf(facts.sessionScope, call.input);
    // Where a call writes though its arguments do not say so (memory/note): named in the question.
    const where = facts.writes?.length
      ? ` (writes ${match.paths.map((p) => path.relative(options.context.workspace, p)).join(', ')})`
      : '';
    const ask = (why: string, guarded = false): PolicyDecision => {
      const reason = `${why}${where}${runsNote && !why.includes(runsNote) ? `; ${runsNote}` : ''}`;
      const session = sessionApprovable && !guarded;
      if (
        session &&
        options.broker?.isApprovedForSession(context.sessionId, call.name, scope?.key)
      ) {
        return { action: 'allow', rule: ruleId, reason: 'approved for this session', grant };
      }
      return {
        action: 'ask',
        reason,
        rule: guarded && guard ? `${guard.policy}/${guard.id}` : ruleId,
        grant,
        sessionApprovable: session,
        ...(session && scope ? { sessionScope: scope } : {}),
        timeoutMs: rule.approval?.timeout_seconds
          ? rule.approval.timeout_seconds * 1000
          : undefined,
        // A person approves a call that runs another program: never a timeout.
        defaultIfTimeout: runs.length ? 'deny' : (rule.approval?.default_if_timeout ?? 'deny'),
      };
    };
    if (guard) return ask(guard.reason ?? `rule ${guard.id} requires approval`, true);
    if (rule.action === 'require-approval')
      return ask(rule.reason ?? `rule ${rule.id} requires approval`);
    if (runsNote)
      return ask(
        `${runsNote}. A rule about the command does not cover that: approve this call on its own`,
      );
    if (facts.tier === 'unsafe') return ask(`${call.name} is an Unsafe tool: it asks every time`);
    if (options.autonomy === 'supervised' && !context.readOnly) {
      return ask(`supervised: ${call.name} has side effects`);
    }
    return {
      action: 'allow',
      rule: ruleId,
      grant,
      ...(rule.action === 'audit-only' ? { reason: 'audit-only' } : {}),
    };
  }

  private rateLimited(): string | undefined {
    const limit = this.options.toolCallsPerMinute;
    if (!limit) return undefined;
    const now = (this.options.now ?? Date.now)();
    while (this.recentCalls.length && (this.recentCalls[0] as number) <= now - 60_000)
      this.recentCalls.shift();
    if (this.recentCalls.length >= limit) return `more than ${limit} tool calls in a minute`;
    this.recentCalls.push(now);
    return undefined;
  }
}
