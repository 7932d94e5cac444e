/**
 * Tool calls typed at the terminal (`pincer run '@fs/list{path="."}'`, or a chat line): parsed
 * here, run by the runtime under the same policy, approvals and audit as a model's calls.
 */
import { MAX_MESSAGE_CHARS } from '../../shared/messages.js';
import type { Redactor } from '../core/redaction/index.js';
import type { AgentRuntime, RunHandle, RunStore, StartOptions } from '../core/runtime/index.js';
import { createSecretStore } from '../core/secrets/index.js';
import type { RunId } from '../core/terms.js';
import { directCallContext, readTypedInput } from '../core/toolcall/index.js';
import type { CliContext } from './context.js';

/** Why `text` cannot be sent: over the limit the app and the gateway apply (chat.send). */
export function messageTooLong(text: string): string | undefined {
  return text.length > MAX_MESSAGE_CHARS
    ? `the message is ${text.length} characters; the limit is ${MAX_MESSAGE_CHARS}`
    : undefined;
}

/** Starts a run for what was typed; a malformed call is returned as a message, not run. */
export async function startTyped(
  ctx: CliContext,
  { runtime, redactor }: { runtime: AgentRuntime; redactor: Redactor },
  start: StartOptions,
): Promise<RunHandle | { error: string }> {
  const tooLong = messageTooLong(start.text);
  if (tooLong) return { error: tooLong };
  const typed = readTypedInput(start.text);
  if (typed.kind === 'message') return runtime.start(start);
  if (typed.kind === 'invalid') {
    const { error } = typed;
    const expected = error.expected.length ? ` (expected ${error.expected.join(', ')})` : '';
    return {
      error: `tool call, line ${error.line}, column ${error.column}: ${error.detail}${expected}`,
    };
  }
  if (start.images?.length)
    return { error: 'images go with a message to the model, not with typed tool calls' };
  const context = directCallContext({
    secretNames: await secretNames(ctx),
    secretValues: redactor.values(),
    ctx: { today: new Date().toISOString().slice(0, 10) },
  });
  return runtime.start({ ...start, calls: { program: typed.program, context } });
}

/** Names only; an unavailable backend contributes none (the name pattern still guards keys). */
async function secretNames(ctx: CliContext): Promise<string[]> {
  try {
    const entries = await createSecretStore({ dataDir: ctx.dataDir }).list();
    return entries.map((entry) => entry.name);
  } catch {
    return [];
  }
}

/**
 * A direct run has no model reply: its answer is the tools' results, in call order (errors on
 * stderr). False when any call failed or was refused.
 */
export function printToolResults(ctx: CliContext, store: RunStore, runId: RunId): boolean {
  const run = store.getRun(runId);
  if (!run?.lastMessageId) return false;
  let ok = true;
  for (const row of store.branch(run.lastMessageId)) {
    if (row.runId !== runId || row.message.role !== 'user') continue;
    for (const block of row.message.content) {
      if (block.type !== 'tool_result') continue;
      const text =
        typeof block.content === 'string'
          ? block.content
          : block.content.map((part) => (part.type === 'text' ? part.text : '[image]')).join('');
      if (block.isError) ok = false;
      if (text)
        (block.isError ? ctx.stderr : ctx.stdout).write(text.endsWith('\n') ? text : `${text}\n`);
    }
  }
  return ok;
}
