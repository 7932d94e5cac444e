/**
 * Builds one assistant message out of protocol-neutral stream fragments and turns each fragment
 * into the ModelEvent the agent loop sees. Adapters only translate their wire events into calls
 * on this class, so every protocol shares one accumulator for text, reasoning and tool calls.
 */
import type { ContentBlock, Message, StopReason, Usage } from '../../../shared/messages.js';
import { ModelError } from './errors.js';
import type { ProviderId } from './ids.js';
import type { ModelEvent } from './types.js';

/** Tool arguments larger than this are refused rather than buffered without end. */
export const MAX_TOOL_ARGUMENT_BYTES = 1 << 20;

interface PendingToolCall {
  id: string;
  name: string;
  /** Argument fragments, joined once at the end (no quadratic concatenation). */
  chunks: string[];
  bytes: number;
  /** Set when the protocol delivers the arguments already parsed (Gemini). */
  input?: Record<string, unknown>;
}

type Part =
  | { kind: 'text'; chunks: string[] }
  | { kind: 'reasoning'; chunks: string[]; signature?: string }
  | { kind: 'tool'; index: number };

export class StreamAssembler {
  private readonly parts: Part[] = [];
  private readonly tools = new Map<number, PendingToolCall>();
  private usage: Usage = { inputTokens: 0, outputTokens: 0 };
  private sawOutput = false;

  constructor(private readonly provider: ProviderId) {}

  /** True once any text, reasoning or tool call arrived: the point after which we never retry. */
  get started(): boolean {
    return this.sawOutput;
  }

  text(delta: string): ModelEvent[] {
    if (!delta) return [];
    this.sawOutput = true;
    const last = this.parts.at(-1);
    if (last?.kind === 'text') last.chunks.push(delta);
    else this.parts.push({ kind: 'text', chunks: [delta] });
    return [{ type: 'text_delta', text: delta }];
  }

  reasoning(delta: string, signature?: string): ModelEvent[] {
    if (!delta && !signature) return [];
    this.sawOutput = true;
    let last = this.parts.at(-1);
    if (last?.kind !== 'reasoning') {
      last = { kind: 'reasoning', chunks: [] };
      this.parts.push(last);
    }
    if (delta) last.chunks.push(delta);
    if (signature) last.signature = (last.signature ?? '') + signature;
    return delta ? [{ type: 'reasoning_delta', text: delta }] : [];
  }

  /** A tool call begins; `index` is the protocol's slot number for later argument deltas. */
  toolStart(index: number, id: string, name: string): ModelEvent[] {
    if (this.tools.has(index)) return [];
    if (!name) throw this.bad(`tool call #${index} started without a name`);
    this.sawOutput = true;
    this.tools.set(index, { id, name, chunks: [], bytes: 0 });
    this.parts.push({ kind: 'tool', index });
    return [{ type: 'tool_call_start', index, id, name }];
  }

  toolArguments(index: number, delta: string): ModelEvent[] {
    if (!delta) return [];
    const call = this.tools.get(index);
    if (!call) throw this.bad(`arguments arrived for tool call #${index} before it started`);
    call.bytes += delta.length;
    if (call.bytes > MAX_TOOL_ARGUMENT_BYTES) {
      throw this.bad(`tool call ${call.name} sent more than ${MAX_TOOL_ARGUMENT_BYTES} bytes`);
    }
    call.chunks.push(delta);
    return [{ type: 'tool_call_delta', index, argumentsDelta: delta }];
  }

  /** A whole tool call at once (protocols that do not stream arguments). */
  toolComplete(index: number, id: string, name: string, input: unknown): ModelEvent[] {
    const events = this.toolStart(index, id, name);
    const call = this.tools.get(index);
    if (call) {
      const value = input ?? {};
      if (!isArguments(value)) throw this.bad(`tool call ${name}: arguments are not an object`);
      call.input = value;
    }
    return [
      ...events,
      { type: 'tool_call_delta', index, argumentsDelta: JSON.stringify(input ?? {}) },
    ];
  }

  hasToolCalls(): boolean {
    return this.tools.size > 0;
  }

  setUsage(usage: Partial<Usage>): ModelEvent[] {
    const merged: Usage = { ...this.usage };
    for (const [key, value] of Object.entries(usage) as [keyof Usage, number | undefined][]) {
      if (typeof value === 'number' && Number.isFinite(value)) merged[key] = value;
    }
    this.usage = merged;
    return [{ type: 'usage', usage: merged }];
  }

  /** The complete message; throws bad_response when a tool call's JSON does not parse. */
  finish(stopReason: StopReason, responseId?: string): ModelEvent {
    return {
      type: 'finish',
      stopReason,
      message: this.message(true),
      usage: this.usage,
      responseId,
    };
  }

  /** What arrived before the stream broke; tool calls whose JSON is incomplete are dropped. */
  lost(error: ModelError): ModelEvent {
    return { type: 'connection_lost', error, partial: this.message(false) };
  }

  /** The reader cancelled: a `cancelled` finish with whatever complete parts arrived. */
  cancelled(): ModelEvent {
    return {
      type: 'finish',
      stopReason: 'cancelled',
      message: this.message(false),
      usage: this.usage,
    };
  }

  private message(strict: boolean): Message {
    const content: ContentBlock[] = [];
    for (const part of this.parts) {
      if (part.kind === 'text') content.push({ type: 'text', text: part.chunks.join('') });
      else if (part.kind === 'reasoning') {
        const block: ContentBlock = { type: 'reasoning', text: part.chunks.join('') };
        if (part.signature) block.signature = part.signature;
        content.push(block);
      } else {
        const call = this.tools.get(part.index);
        if (!call) continue;
        const input = call.input ?? this.parseArguments(call, strict);
        if (input) content.push({ type: 'tool_use', id: call.id, name: call.name, input });
      }
    }
    return { role: 'assistant', content };
  }

  private parseArguments(call: PendingToolCall, strict: boolean) {
    const text = call.chunks.join('').trim();
    if (text === '') return {};
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      if (!strict) return undefined;
      throw this.bad(`tool call ${call.name} (${call.id}) has arguments that are not valid JSON`);
    }
    if (isArguments(value)) return value;
    if (!strict) return undefined;
    throw this.bad(`tool call ${call.name} (${call.id}) has arguments that are not an object`);
  }

  private bad(message: string): ModelError {
    return new ModelError('bad_response', message, { provider: this.provider });
  }
}

function isArguments(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
