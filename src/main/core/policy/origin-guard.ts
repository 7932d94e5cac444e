/**
 * The policy as a background run meets it: the same decisions as a run started by hand, with two
 * differences that only ever refuse more. A viewer on a role-based channel triggers no tool
 * (CKP §5.3 roles), and an approval nobody answers is denied even where a rule would let its
 * timeout allow: a channel message or a schedule never approves anything on a person's behalf.
 */

import type { RunId, RunOrigin } from '../terms.js';
import type { PolicyDecision, PolicyHook } from './hooks.js';

export function originGuarded(
  inner: PolicyHook,
  originOfRun: (runId: RunId) => RunOrigin | undefined,
): PolicyHook {
  return {
    async decide(call, context): Promise<PolicyDecision> {
      const origin = originOfRun(context.runId);
      if (origin?.role === 'viewer') {
        return {
          action: 'deny',
          rule: 'channel-role',
          reason: `a viewer on channel "${origin.channel}" cannot trigger tools`,
        };
      }
      const decision = await inner.decide(call, context);
      if (origin && decision.action === 'ask' && decision.defaultIfTimeout === 'allow') {
        return { ...decision, defaultIfTimeout: 'deny' };
      }
      return decision;
    },
  };
}
