/**
 * Runs without a model call: the user's typed tool calls (`@fs/list{path="."} -> ...`) and a
 * protocol client's one call (CKP `claw.tool.call`, MCP `tools/call`), under the same policy,
 * approvals and audit as a model's calls. Each returns the reason the run completed with.
 */
import type { ToolCall, ToolResultBlock } from '../../../shared/messages.js';
import { newId } from '../terms.js';
import { checkReferences, planToolCall, resolveCall } from '../toolcall/index.js';
import type { RunScope } from './run-scope.js';
import { RunStop } from './stops.js';
import { toolStep } from './tool-phase.js';
import type { DirectCalls } from './types.js';

/**
 * The user's own tool calls. Each plan step is recorded as an assistant tool-use message so
 * the session's history stays well formed for the model's next turn; `$prev` reads the step
 * before (its JSON when the tool returned JSON). A failed step ends the chain.
 */
export async function runDirectCalls(
  scope: RunScope,
  { program, context }: DirectCalls,
): Promise<string> {
  try {
    checkReferences(program, context);
  } catch (error) {
    throw new RunStop('denied', 'deny', (error as Error).message);
  }
  let previous = context.previous;
  const steps = planToolCall(program).steps;
  for (const [index, step] of steps.entries()) {
    if (index > 0) scope.go('continue');
    const invokes = step.kind === 'call' ? [step.call] : step.calls;
    let calls: ToolCall[];
    try {
      calls = invokes.map((invoke) => {
        const resolved = resolveCall(invoke, context, previous);
        return { id: newId<string>('call'), name: resolved.tool, input: resolved.args };
      });
    } catch (error) {
      throw new RunStop('denied', 'deny', (error as Error).message);
    }
    scope.go('user_call');
    scope.append(
      { role: 'assistant', content: calls.map((call) => ({ type: 'tool_use', ...call })) },
      scope.lastMessageId,
      false,
    );
    const results = await toolStep(scope, calls);
    const failed = results.find((result) => result.isError);
    if (failed) {
      scope.go('answered');
      const name = calls.find((call) => call.id === failed.toolUseId)?.name ?? 'a tool';
      const rest = steps.length - index - 1;
      return rest ? `${name} failed; ${rest} later step(s) not run` : `${name} failed`;
    }
    const last = results.at(-1);
    previous = { result: last ? jsonOrText(last.content) : undefined };
  }
  scope.go('answered');
  return 'the requested tools ran';
}

/** A protocol client's one call, recorded as an assistant tool-use message like a model's. */
export async function runSingleCall(
  scope: RunScope,
  given: { name: string; input: Record<string, unknown> },
): Promise<string> {
  const call: ToolCall = { id: newId<string>('call'), name: given.name, input: given.input };
  scope.go('user_call');
  scope.append(
    { role: 'assistant', content: [{ type: 'tool_use', ...call }] },
    scope.lastMessageId,
    false,
  );
  const [result] = await toolStep(scope, [call]);
  scope.go('answered');
  return result?.isError ? `${call.name} failed` : 'the requested tool ran';
}

/** A tool's result as `$prev` sees it: parsed when it is JSON, the text otherwise. */
function jsonOrText(content: ToolResultBlock['content']): unknown {
  if (typeof content !== 'string')
    return content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  try {
    return JSON.parse(content);
  } catch {
    return content;
  }
}
