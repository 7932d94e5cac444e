/**
 * Builds one assistant message out of protocol-neutral stream fragments and turns each fragment
 * into the ModelEvent the agent loop sees. Adapters only translate their wire events into calls
 * on this class, so every protocol shares one accumulator for text, reasoning and tool calls.
 */
import type { ContentBlock, Message, StopReason, Usage } from '../../../shared/messages.js';
import { ModelError } from './errors.js';
import type { ProviderId } from './ids.js';
import { readArgumentsText, readArgumentsValue } from './tool-arguments.js';
import type { ModelEvent } from './types.js';

/** Tool arguments larger than this are refused (answered invalid) rather than buffered. */
export const MAX_TOOL_ARGUMENT_BYTES = 1 << 20;

interface PendingToolCall {
  id: string;
  name: string;
  /** Argument fragments, joined once at the end (no quadratic concatenation). */
  chunks: string[];
  bytes: number;
  /** Set when the protocol delivers the arguments already parsed (Gemini). */
  input?: Record<string, unknown>;
  /** Why the arguments cannot be used (too large, not an object, nested too deep). */
  problem?: string;
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
      call.problem = `the arguments are larger than ${MAX_TOOL_ARGUMENT_BYTES} bytes`;
      call.chunks = [];
    }
    if (!call.problem) call.chunks.push(delta);
    return [{ type: 'tool_call_delta', index, argumentsDelta: delta }];
  }

  /** A whole tool call at once (protocols that do not stream arguments). */
  toolComplete(index: number, id: string, name: string, input: unknown): ModelEvent[] {
    const events = this.toolStart(index, id, name);
    const call = this.tools.get(index);
    if (call) {
      const read = readArgumentsValue(input ?? {});
      if ('input' in read) call.input = read.input;
      else call.problem = read.problem;
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

  /** The complete message; a call whose arguments cannot be read carries `invalidArguments`. */
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
        const read = call.input
          ? { input: call.input }
          : call.problem
            ? { problem: call.problem }
            : readArgumentsText(call.chunks.join(''));
        if ('input' in read) {
          content.push({ type: 'tool_use', id: call.id, name: call.name, input: read.input });
        } else if (strict) {
          // Answered with invalid_arguments before any policy or tool sees it: the model's
          // mistake to correct, not the run's failure. A cut-off stream drops the half call.
          content.push({
            type: 'tool_use',
            id: call.id,
            name: call.name,
            input: {},
            invalidArguments: read.problem,
          });
        }
      }
    }
    return { role: 'assistant', content };
  }

  private bad(message: string): ModelError {
    return new ModelError('bad_response', message, { provider: this.provider });
  }
}
