/**
 * One turn's tool calls, end to end: resolve each name (wire or namespaced) against what the
 * agent may see, validate the arguments, ask the policy hook, run. Read-only tools run in
 * parallel; a side-effecting tool is a barrier that runs alone, in call order. Results come back
 * as ToolResultBlocks in the order the model made the calls. Nothing here throws for a bad call:
 * every failure is a result the model can read.
 */
import type { ToolCall, ToolResultBlock } from '../../../shared/messages.js';
import { CKP_ERRORS } from '../ckp/index.js';
import type { ToolRegistry } from './registry.js';
import {
  inProcessExecutor,
  isToolError,
  type Tool,
  type ToolContext,
  type ToolExecutor,
  type ToolOutput,
} from './types.js';

/** What the policy says about one checked call just before it runs. */
export type BeforeRunVerdict = 'allow' | { deny: string };

/** A call whose tool is known and whose arguments passed validation. */
export interface CheckedCall {
  call: ToolCall;
  tool: Tool;
}

export interface ExecuteOptions {
  registry: ToolRegistry;
  /** Name globs of the tools this agent may use; anything else is refused as unknown. */
  allow: readonly string[];
  workspace: string;
  env?: Record<string, string>;
  allowPrivateNetwork?: boolean;
  executor?: ToolExecutor;
  signal?: AbortSignal;
  /** The policy's say, asked after validation and before each run. */
  beforeRun?: (checked: CheckedCall) => Promise<BeforeRunVerdict>;
}

export interface RunSettings {
  workspace: string;
  env?: Record<string, string>;
  allowPrivateNetwork?: boolean;
  executor?: ToolExecutor;
}

export async function executeToolCalls(
  calls: readonly ToolCall[],
  options: ExecuteOptions,
): Promise<ToolResultBlock[]> {
  const signal = options.signal ?? new AbortController().signal;
  const results: ToolOutput[] = new Array(calls.length);
  // Unknown tools and invalid arguments are answered up front; they never reach the policy.
  const steps: Array<{ index: number; checked: CheckedCall }> = [];
  for (const [index, call] of calls.entries()) {
    const checked = await options.registry.check(call, options.allow);
    if ('error' in checked) results[index] = checked.error;
    else steps.push({ index, checked });
  }

  const runStep = async ({ index, checked }: (typeof steps)[number]) => {
    results[index] = await guardedRun(checked, options, signal);
  };
  let batch: Array<(typeof steps)[number]> = [];
  const flush = async () => {
    await Promise.all(batch.map(runStep));
    batch = [];
  };
  for (const step of steps) {
    if (step.checked.tool.annotations.readOnlyHint === true) {
      batch.push(step);
      continue;
    }
    await flush();
    await runStep(step);
  }
  await flush();

  return calls.map((call, index) => {
    const output = results[index] ?? { content: 'not run', isError: true };
    return {
      type: 'tool_result',
      toolUseId: call.id,
      content: output.content,
      ...(output.isError ? { isError: true } : {}),
    };
  });
}

async function guardedRun(
  checked: CheckedCall,
  options: ExecuteOptions,
  signal: AbortSignal,
): Promise<ToolOutput> {
  if (signal.aborted) return { content: `${checked.tool.name} was cancelled`, isError: true };
  if (options.beforeRun) {
    let verdict: BeforeRunVerdict;
    try {
      verdict = await options.beforeRun(checked);
    } catch (error) {
      verdict = { deny: `the policy check failed: ${(error as Error).message}` };
    }
    if (verdict !== 'allow') {
      return {
        content: JSON.stringify({ error: 'denied', tool: checked.tool.name, reason: verdict.deny }),
        isError: true,
      };
    }
  }
  return runTool(checked.tool, checked.call.input, options, signal);
}

/** Runs one validated call under its deadline, with its output capped. Never throws. */
export async function runTool(
  tool: Tool,
  input: Record<string, unknown>,
  settings: RunSettings,
  signal: AbortSignal,
  caller?: { runId: string; callId: string },
): Promise<ToolOutput> {
  const deadline = AbortSignal.timeout(tool.timeoutMs);
  const context: ToolContext = {
    signal: AbortSignal.any([signal, deadline]),
    workspace: settings.workspace,
    env: settings.env ?? {},
    allowPrivateNetwork: settings.allowPrivateNetwork,
    ...(caller ? { runId: caller.runId, callId: caller.callId } : {}),
  };
  const executor = settings.executor ?? inProcessExecutor;
  try {
    // A tool that ignores its signal must not hold the turn long past its deadline; one that
    // honours it gets a moment to report how it stopped.
    const output = await Promise.race([
      executor.run(tool, input, context),
      rejectAfterAbort(context.signal, ABORT_GRACE_MS),
    ]);
    return {
      content: capOutput(output.content, tool.maxOutputBytes),
      isError: output.isError,
      ...(output.isError && output.code !== undefined ? { code: output.code } : {}),
    };
  } catch (error) {
    if (deadline.aborted) {
      return {
        content: `${tool.name} timed out after ${tool.timeoutMs} ms`,
        isError: true,
        code: CKP_ERRORS.toolTimeout,
      };
    }
    if (signal.aborted) return { content: `${tool.name} was cancelled`, isError: true };
    if (isToolError(error)) return { content: error.message, isError: true, ...codeOf(error) };
    return { content: `${tool.name} failed: ${(error as Error).message}`, isError: true };
  }
}

const ABORT_GRACE_MS = 1000;

/** The CKP code a tool error carries (a ToolError's; a file guard's string code is no CKP code). */
function codeOf(error: Error): { code?: number } {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' ? { code } : {};
}

function rejectAfterAbort(signal: AbortSignal, graceMs: number): Promise<never> {
  return new Promise((_, reject) => {
    const fail = () => {
      setTimeout(() => reject(signal.reason ?? new Error('aborted')), graceMs).unref();
    };
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}

/** Over the cap: the head of the output and a notice with the original size. */
export function capOutput(text: string, maxBytes: number): string {
  const size = Buffer.byteLength(text);
  if (size <= maxBytes) return text;
  const head = Buffer.from(text)
    .subarray(0, maxBytes)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return `${head}\n[output truncated: ${size} bytes, showing the first ${maxBytes}]`;
}
