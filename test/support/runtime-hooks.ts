/**
 * Hooks for tests of the loop itself, where policy is not what is being tested. The runtime has
 * no defaults (production code gets its policy and approvals from the agent root), so a test
 * that wants every call allowed says so by name.
 */
import type { ApprovalHook, PolicyHook } from '../../src/main/core/policy/hooks.js';
import type { ToolHost } from '../../src/main/core/tools/host.js';

export const allowEveryCall: PolicyHook = { decide: async () => ({ action: 'allow' }) };

export const nobodyAnswers: ApprovalHook = {
  request: async () => ({ approved: false, by: 'nobody (test)' }),
};

/** Policy and approvals for a test of something else: every call allowed, no one to ask. */
export const UNGOVERNED = { policy: allowEveryCall, approvals: nobodyAnswers } as const;

export const noTools: ToolHost = {
  definitions: () => [],
  isReadOnly: () => false,
  validate: async () => undefined,
  prepare: () => undefined,
  execute: async (call) => ({ content: `no tool named "${call.name}"`, isError: true }),
};
