/**
 * Fits a model request to the model's context window before it is sent: the system text is
 * always kept, older turns of the history go first, and when the tool definitions themselves do
 * not fit, tools are left out from the end of the list (the manifest's order is their priority)
 * with a notice naming them. A request that cannot fit even without tools and older turns fails
 * here, in tokens, instead of deep inside an engine or with a provider's 400.
 */
import type { ContentBlock, Message, ToolDef } from '../../../shared/messages.js';
import { ModelError } from './errors.js';
import { estimateInputTokens } from './limits.js';
import type { ModelRequest } from './types.js';

/** Counts a request's parts in the units of the model that reads them. */
export interface PromptMeasure {
  /** Tokens of the system text and tool definitions as the model's format writes them. */
  prefix(system: string | undefined, tools: readonly ToolDef[]): number | Promise<number>;
  /** Tokens of one history message. */
  message(message: Message): number;
}

/** The window a request must fit, as the model that serves it declares or loaded it. */
export interface ContextWindow {
  tokens: number;
  /** The model's own tokenizer and chat format where known; else an estimate. */
  measure?: PromptMeasure;
}

/** What was left out to make a request fit, for the person to see. */
export interface ContextNotice {
  context_tokens: number;
  tools_left_out: string[];
  messages_left_out: number;
}

export interface FittedRequest<R extends ModelRequest> {
  request: R;
  /** Set when something was left out. */
  notice?: ContextNotice;
  /** Tokens of the prompt as sent, by the measure used. */
  promptTokens: number;
}

/** About four characters a token over the same parts the limits count. */
export const ESTIMATED_MEASURE: PromptMeasure = {
  prefix: (system, tools) => estimateInputTokens({ system, tools: [...tools], messages: [] }),
  message: (message) => estimateInputTokens({ messages: [message] }),
};

/**
 * Tokens kept free for the reply: a quarter of a small window, at most 1,024, or less when
 * `maxTokens` asks for less. `maxTokens` is a ceiling, not a demand: a larger one keeps no more
 * room (history is not given up for it), and the reply then ends where the window does.
 */
export function replyReserve(contextTokens: number, maxTokens?: number): number {
  const room = Math.min(1024, Math.floor(contextTokens / 4));
  return maxTokens === undefined ? room : Math.min(maxTokens, room);
}

/** Counted once per message object: a run's history is the same objects turn after turn. */
const counted = new WeakMap<PromptMeasure, WeakMap<Message, number>>();

function messageTokens(measure: PromptMeasure, messages: readonly Message[]): number {
  let cache = counted.get(measure);
  if (!cache) {
    cache = new WeakMap();
    counted.set(measure, cache);
  }
  let sum = 0;
  for (const message of messages) {
    let tokens = cache.get(message);
    if (tokens === undefined) {
      tokens = measure.message(message);
      cache.set(message, tokens);
    }
    sum += tokens;
  }
  return sum;
}

const opensTurn = (message: Message) =>
  message.role === 'user' && message.content.some((block) => !isToolResult(block));
const isToolResult = (block: ContentBlock) => block.type === 'tool_result';

/**
 * The history cut into turns, each starting at a user message of its own (not a tool result),
 * so a tool call is never separated from its result.
 */
function turnsOf(messages: readonly Message[]): Message[][] {
  const turns: Message[][] = [];
  for (const message of messages) {
    const last = turns.at(-1);
    if (!last || opensTurn(message)) turns.push([message]);
    else last.push(message);
  }
  return turns;
}

/**
 * The request as it fits `window` (unchanged when it already does, or when no window is known).
 * Order of sacrifice: older turns, then tools from the end of the list; the system text and the
 * newest turn are never cut.
 */
export async function fitRequestToContext<R extends ModelRequest>(
  request: R,
  window: ContextWindow | undefined,
): Promise<FittedRequest<R>> {
  if (!window) return { request, promptTokens: 0 };
  const measure = window.measure ?? ESTIMATED_MEASURE;
  const reserve = replyReserve(window.tokens, request.maxTokens);
  const room = window.tokens - reserve;
  const offered = request.toolChoice === 'none' ? [] : (request.tools ?? []);

  const turns = turnsOf(request.messages);
  const newest = turns.at(-1) ?? [];
  const newestTokens = messageTokens(measure, newest);
  const older = turns.slice(0, -1);
  const olderTokens = older.map((turn) => messageTokens(measure, turn));
  const all = olderTokens.reduce((sum, n) => sum + n, 0) + newestTokens;

  let prefix = await measure.prefix(request.system, offered);
  if (prefix + all <= room) return { request, promptTokens: prefix + all };

  // Tools stay while the newest turn fits beside them; older turns fill what is left.
  let kept = offered.length;
  while (kept > 0 && prefix + newestTokens > room) {
    kept--;
    prefix = await measure.prefix(request.system, offered.slice(0, kept));
  }
  if (prefix + newestTokens > room) {
    throw new ModelError(
      'invalid_request',
      `This model's context holds ${window.tokens} tokens: the instructions and the newest ` +
        `message take ${prefix + newestTokens} even without tools or older turns, leaving no ` +
        `room for a reply of ${reserve}. Shorten the message or the instructions, or choose a ` +
        'model (or context size) with more room.',
    );
  }
  let used = prefix + newestTokens;
  let from = older.length;
  while (from > 0 && used + (olderTokens[from - 1] ?? 0) <= room) {
    from--;
    used += olderTokens[from] ?? 0;
  }
  const messages = [...older.slice(from).flat(), ...newest];
  const tools = offered.slice(0, kept);
  const fitted: R = { ...request, messages };
  if (request.tools !== undefined && request.toolChoice !== 'none') {
    fitted.tools = tools;
    // Nothing left to call: the model answers in words.
    if (tools.length === 0) delete fitted.toolChoice;
    else if (typeof request.toolChoice === 'object') {
      const named = request.toolChoice.name;
      if (!tools.some((tool) => tool.name === named)) delete fitted.toolChoice;
    }
  }
  return {
    request: fitted,
    promptTokens: used,
    notice: {
      context_tokens: window.tokens,
      tools_left_out: offered.slice(kept).map((tool) => tool.name),
      messages_left_out: request.messages.length - messages.length,
    },
  };
}

/** Below this many tokens of context a model gets fewer tools and less of the conversation. */
export const SMALL_CONTEXT_TOKENS = 4096;

/** What a small context means, in one sentence, before the first message; else undefined. */
export function smallContextNote(contextTokens: number | undefined): string | undefined {
  if (contextTokens === undefined || contextTokens >= SMALL_CONTEXT_TOKENS) return undefined;
  return (
    `This model reads at most ${contextTokens} tokens at once, so Pincer will offer it fewer ` +
    'tools and it will remember less of a long chat.'
  );
}

/** The notice in one sentence, for a person. */
export function describeNotice(notice: ContextNotice): string {
  const parts: string[] = [];
  const tools = notice.tools_left_out.length;
  if (tools > 0)
    parts.push(
      `${tools} tool${tools === 1 ? '' : 's'} left out (${notice.tools_left_out.join(', ')})`,
    );
  const turns = notice.messages_left_out;
  if (turns > 0)
    parts.push(`${turns} older message${turns === 1 ? '' : 's'} not shown to the model`);
  return `${parts.join('; ')}: the model's context (${notice.context_tokens} tokens) is too small for more.`;
}
