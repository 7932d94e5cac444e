/**
 * `claw.tool.call`, `claw.tool.approve`, `claw.tool.deny` (§9.3.2). A call is one run of the
 * agent's runtime with the call given as JSON: the same validation, policy, approvals, sandbox,
 * deadline, screening and audit as a model's call. Its refusal or failure keeps the CKP code the
 * runtime gave it; nothing here looks at which tool it was.
 */
import type { Agent } from '../agent/index.js';
import { CKP_ERRORS } from '../ckp/index.js';
import type { RunEvent } from '../runtime/index.js';
import type { RunId, RunOrigin } from '../terms.js';
import { RpcError } from './jsonrpc.js';

export interface ToolCallResult {
  content: Array<{ type: 'text'; text: string }>;
  isError: boolean;
}

const TITLES: Record<number, string> = {
  [CKP_ERRORS.invalidParams]: 'Invalid params',
  [CKP_ERRORS.sandboxDenied]: 'Sandbox denied',
  [CKP_ERRORS.policyDenied]: 'Policy denied',
  [CKP_ERRORS.approvalTimeout]: 'Approval timeout',
  [CKP_ERRORS.approvalDenied]: 'Approval denied',
  [CKP_ERRORS.toolTimeout]: 'Tool execution timeout',
  [CKP_ERRORS.providerQuota]: 'Provider quota exceeded',
};

export class ToolCalls {
  /** Calls in progress by request id: where an approval for them is found. */
  private readonly running = new Map<string, RunId>();

  /**
   * `origin` names the protocol surface: its runs are remote ones, so an approval nobody answers
   * is denied whatever the rule's timeout answer (the origin guard).
   */
  constructor(private readonly origin: RunOrigin) {}

  async call(
    agent: Agent,
    name: string,
    input: Record<string, unknown>,
    requestId: string,
    /** Cancels the call's run when aborted (the server stopping gave up draining). */
    signal?: AbortSignal,
  ): Promise<ToolCallResult> {
    if (!agent.registry.get(name)) {
      // Only what a run may be offered is named, never the tools the allow list hides.
      throw new RpcError(CKP_ERRORS.invalidParams, `Invalid params: no tool named "${name}"`, {
        tool: name,
        available: agent.offeredTools().map((tool) => tool.name),
      });
    }
    const handle = agent.runtime.start({
      text: `claw.tool.call ${name}`,
      toolCall: { name, input },
      signal,
      origin: this.origin,
    });
    this.running.set(requestId, handle.runId);
    let result: Awaited<typeof handle.done>;
    try {
      result = await handle.done;
    } finally {
      this.running.delete(requestId);
    }
    const events = handle.events.events;
    const finished = events.find(
      (event): event is Extract<RunEvent, { type: 'tool.finished' }> =>
        event.type === 'tool.finished',
    );
    const [row] = agent.store.lastToolCalls(handle.runId);
    if (!finished || !row) {
      throw new RpcError(CKP_ERRORS.internalError, `Internal error: ${result.reason}`, {
        tool: name,
        request_id: requestId,
        outcome: result.outcome,
      });
    }
    const text = row.result ?? '';
    if (finished.code !== undefined) throw refusal(finished.code, name, requestId, text, events);
    return { content: [{ type: 'text', text }], isError: row.isError };
  }

  /** Whether this run is one of the calls in progress here. */
  owns(runId: RunId): boolean {
    for (const running of this.running.values()) if (running === runId) return true;
    return false;
  }

  /**
   * Answers the pending approval of the call with this request id. False when that call is not
   * waiting for one (unknown, finished, or not yet asking): nothing is approved ahead of time.
   */
  answer(agent: Agent, requestId: string, approve: boolean, by: string): boolean {
    const runId = this.running.get(requestId);
    if (!runId) return false;
    const { broker } = agent.governance;
    const pending = broker.pending().find((approval) => approval.runId === runId);
    if (!pending) return false;
    return broker.resolve(pending.id, approve ? 'approve' : 'deny', by) === 'resolved';
  }
}

/** The JSON-RPC error for a refused or failed call, with what the policy decided as data. */
function refusal(
  code: number,
  tool: string,
  requestId: string,
  text: string,
  events: readonly RunEvent[],
): RpcError {
  const decided = events.find(
    (event): event is Extract<RunEvent, { type: 'policy.decided' }> =>
      event.type === 'policy.decided',
  );
  const predicted = events.find(
    (event): event is Extract<RunEvent, { type: 'world_model.predicted' }> =>
      event.type === 'world_model.predicted',
  );
  const detail = detailOf(text);
  return new RpcError(code, `${TITLES[code] ?? 'Error'}: ${detail.message}`, {
    tool,
    request_id: requestId,
    // The engine names a rule `policy/id`; CKP's rule_id is the rule's own id.
    ...(decided?.rule ? ruleOf(decided.rule) : {}),
    ...(decided ? { action: decided.decision } : {}),
    ...(detail.details ? { details: detail.details } : {}),
    // What a declared world model expected of the call (CKP 0.3.0), as the approval showed it.
    ...(predicted ? { prediction: predictionData(predicted) } : {}),
  });
}

function predictionData(event: Extract<RunEvent, { type: 'world_model.predicted' }>) {
  const { world_model, risk, summary, cost, unavailable } = event;
  return {
    world_model,
    risk,
    summary,
    ...(cost !== undefined ? { cost } : {}),
    ...(unavailable !== undefined ? { unavailable } : {}),
  };
}

/** A refusal's sentence (the runtime writes JSON with a message; tools write text). */
function detailOf(text: string): { message: string; details?: unknown } {
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    if (parsed && typeof parsed === 'object') {
      const message =
        typeof parsed.message === 'string'
          ? parsed.message
          : typeof parsed.reason === 'string'
            ? parsed.reason
            : String(parsed.error ?? 'refused');
      return { message, details: parsed };
    }
  } catch {
    // Plain text.
  }
  return { message: text };
}

function ruleOf(qualified: string): { rule_id: string; policy?: string } {
  const slash = qualified.indexOf('/');
  return slash < 0
    ? { rule_id: qualified }
    : { rule_id: qualified.slice(slash + 1), policy: qualified.slice(0, slash) };
}
