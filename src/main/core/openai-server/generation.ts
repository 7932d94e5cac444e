/** Mapping shared by the chat and Responses routes: tools, JSON formats, stop reasons, usage. */
import { randomBytes } from 'node:crypto';
import type { LocalStopReason, LocalToolDef, LocalUsage } from '../local/index.js';
import { schemaBoundsProblem } from '../local/index.js';
import { invalidParam } from './errors.js';

/** Tools one request may declare (OpenAI's own limit): each one's schema is a grammar. */
export const MAX_TOOLS = 128;

/**
 * The tools the model may call and how, with a named choice narrowed to that one tool. Each
 * tool's parameters are bounded here, before the request waits for the model.
 */
export function chooseTools(
  tools: LocalToolDef[],
  choice: 'auto' | 'none' | 'required' | { name: string } | undefined,
  param: (index: number) => string,
): { tools: LocalToolDef[]; toolChoice: 'auto' | 'none' | 'required' } {
  if (tools.length > MAX_TOOLS)
    throw invalidParam(`a request may declare at most ${MAX_TOOLS} tools`, 'tools');
  for (const [index, tool] of tools.entries()) {
    const problem =
      tool.parameters === undefined ? undefined : schemaBoundsProblem(tool.parameters);
    if (problem) throw invalidParam(`${tool.name}: ${problem}`, param(index));
  }
  if (choice === undefined) return { tools, toolChoice: 'auto' };
  if (typeof choice === 'string') {
    if (choice === 'required' && tools.length === 0)
      throw invalidParam('tool_choice "required" needs at least one tool', 'tool_choice');
    return { tools, toolChoice: choice };
  }
  const named = tools.filter((tool) => tool.name === choice.name);
  if (named.length === 0)
    throw invalidParam(`tool_choice names "${choice.name}", which is not in tools`, 'tool_choice');
  return { tools: named, toolChoice: 'required' };
}

/** json_object: any JSON object; json_schema: that schema, enforced by a grammar. */
export function jsonSchemaFor(
  format: { type: 'text' } | { type: 'json_object' } | { type: 'json_schema'; schema?: object },
  param: string,
): Record<string, unknown> | undefined {
  if (format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'object', additionalProperties: true };
  if (!format.schema) throw invalidParam('json_schema needs a schema', param);
  const problem = schemaBoundsProblem(format.schema);
  if (problem) throw invalidParam(problem, param);
  return format.schema as Record<string, unknown>;
}

export function parseArguments(text: string, param: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw invalidParam('tool call arguments are not valid JSON', param);
  }
}

export type FinishReason = 'stop' | 'length' | 'tool_calls';

export function finishReason(stop: LocalStopReason): FinishReason {
  if (stop === 'max_tokens') return 'length';
  if (stop === 'tool_calls') return 'tool_calls';
  return 'stop';
}

/** Prompt tokens served from the KV cache (the engine's meter may count a re-evaluation twice). */
export function cachedTokens(usage: LocalUsage): number {
  return Math.max(0, usage.inputTokens - usage.evaluatedInputTokens);
}

export function chatUsage(usage: LocalUsage) {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: cachedTokens(usage) },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

export function newId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString('hex')}`;
}

export const unixNow = () => Math.floor(Date.now() / 1000);
