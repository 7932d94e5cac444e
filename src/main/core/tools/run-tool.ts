/**
 * Runs one validated tool call: under its deadline (a tool that ignores its signal is let go
 * after a short grace), through the executor the sandbox provides, with its output capped.
 * Every failure is a result the model can read; nothing here throws.
 */
import { CKP_ERRORS } from '../ckp/index.js';
import {
  inProcessExecutor,
  isToolError,
  type Tool,
  type ToolContext,
  type ToolExecutor,
  type ToolOutput,
} from './types.js';

export interface RunSettings {
  workspace: string;
  env?: Record<string, string>;
  allowPrivateNetwork?: boolean;
  executor?: ToolExecutor;
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
