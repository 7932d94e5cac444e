/**
 * What an MCP server may ask of Pincer as its client: `sampling/createMessage` (a completion
 * from the agent's model), `roots/list` (the workspace) and `elicitation/create` (a form the
 * user fills). Each capability is declared only when Pincer can honour it: elicitation only
 * where a surface that can show a form is attached (the chat UI, `pincer run`/`chat`), and in
 * form mode only: URL mode is never declared, so the main process never opens a server's link.
 *
 * An elicitation is hostile input: its message and schema are read by policy's readInputForm
 * (the specification's restricted form schema, bounded), and anything else is refused with
 * InvalidParams before anyone sees it. The protocol does not say which request an elicitation
 * belongs to (the SDK's relatedRequestId only routes it on the transport), so it is tied to the
 * tool call in flight on that connection; with none, or with calls of several runs in flight,
 * it is refused rather than shown in the wrong conversation.
 *
 * A sampling request is hostile input from a server: its messages and system prompt are
 * bounded, only text is passed on, and its maxTokens is capped. The completion goes through
 * the agent's model access, so a manifest provider's declared limits are reserved and checked
 * (router) before anything leaves the machine; over them, the server gets the quota error
 * (CKP -32021) as the JSON-RPC error of its request.
 */
import { pathToFileURL } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type ClientCapabilities,
  type CreateMessageRequest,
  CreateMessageRequestSchema,
  type CreateMessageResult,
  type ElicitResult,
  ErrorCode,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Message, Usage } from '../../../shared/messages.js';
import { categoryOfCkpCode, ckpCodeOf, PincerError } from '../errors.js';
import type { ModelAccess, OutsideSpend } from '../models/index.js';
import { ModelError } from '../models/index.js';
import type { InputOutcome, InputRequest } from '../policy/index.js';
import { readInputForm } from '../policy/index.js';
import type { RunId } from '../terms.js';

/** Where a server's form goes to be answered (the input broker). */
export interface InputAsker {
  request(request: InputRequest): Promise<InputOutcome>;
}

/** The tool call a server's request belongs to, as its connection tracks them. */
export type CallerOf =
  | { kind: 'call'; runId: string; callId?: string; tool?: string; signal: AbortSignal }
  | { kind: 'none' }
  | { kind: 'ambiguous' };

export interface ClientRequestOptions {
  /** The model that answers sampling; undefined (no model available): sampling is not offered. */
  sampler?: () => ModelAccess | undefined;
  /** Where a completion's usage is charged to the run whose tool call asked for it. */
  spend?: OutsideSpend;
  /** The folder offered as the one root (the workspace). */
  root?: string;
  /** Where forms are answered; undefined (nobody to ask): elicitation is not offered. */
  inputs?: InputAsker;
}

/**
 * The SDK's own request schema would strip the keywords it does not know before Pincer sees
 * them (a `pattern`, a nested `properties`); this one keeps the request as sent, and the SDK
 * still checks its shape (InvalidParams) before the handler runs.
 */
const RawElicitRequest = z.looseObject({
  method: z.literal('elicitation/create'),
  params: z.looseObject({}),
});

/** Caps on what one sampling request may ask; a server cannot make Pincer spend more. */
export const SAMPLING_LIMITS = {
  maxTokens: 1024,
  messages: 64,
  /** Characters of all message text, the system prompt and the stop sequences. */
  chars: 64 * 1024,
  /** Completions one tool call may ask for. */
  perCall: 100,
} as const;

/** Completions counted per tool call; the oldest calls are forgotten past a bound. */
class SampleCounts {
  private readonly counts = new Map<string, number>();

  take(call: string): boolean {
    const used = this.counts.get(call) ?? 0;
    if (used >= SAMPLING_LIMITS.perCall) return false;
    this.counts.delete(call);
    this.counts.set(call, used + 1);
    for (const oldest of this.counts.keys()) {
      if (this.counts.size <= 1024) break;
      this.counts.delete(oldest);
    }
    return true;
  }
}

export function clientCapabilities(options: ClientRequestOptions): ClientCapabilities {
  return {
    ...(options.sampler?.() ? { sampling: {} } : {}),
    ...(options.root ? { roots: { listChanged: false } } : {}),
    // Form mode only: a URL-mode request is refused by the SDK (InvalidParams).
    ...(options.inputs ? { elicitation: { form: {} } } : {}),
  };
}

/** Installs the handlers for what `clientCapabilities` declared on this client. */
export function answerServerRequests(
  client: Client,
  options: ClientRequestOptions,
  label: string,
  /** The tool call in flight that a server's request belongs to. */
  callerOf: () => CallerOf = () => ({ kind: 'none' }),
): void {
  const capabilities = clientCapabilities(options);
  if (capabilities.sampling) {
    const counted = new SampleCounts();
    client.setRequestHandler(CreateMessageRequestSchema, (request, extra) => {
      const caller = callerOf();
      // Like a form, a completion is spent on behalf of one tool call, and counted against it.
      if (caller.kind !== 'call')
        throw new Refusal(
          ErrorCode.InvalidRequest,
          caller.kind === 'none'
            ? 'Pincer answers sampling only while one of its tool calls to this server is in flight'
            : 'calls of several runs are in flight on this server: Pincer cannot tell which one asks',
        );
      if (!counted.take(`${caller.runId}/${caller.callId ?? ''}`))
        throw new Refusal(
          ErrorCode.InvalidRequest,
          `sampling allows at most ${SAMPLING_LIMITS.perCall} completions per tool call`,
        );
      return sample(options.sampler?.(), request.params, extra.signal, label, (usage, cost) =>
        options.spend?.add(caller.runId, usage, cost),
      );
    });
  }
  const root = options.root;
  if (root) {
    client.setRequestHandler(ListRootsRequestSchema, () => ({
      roots: [{ uri: pathToFileURL(root).href, name: 'workspace' }],
    }));
  }
  const inputs = options.inputs;
  if (capabilities.elicitation && inputs) {
    client.setRequestHandler(RawElicitRequest, (request, extra) =>
      elicit(inputs, request.params, callerOf(), extra.signal, label),
    );
  }
}

async function elicit(
  inputs: InputAsker,
  params: Record<string, unknown>,
  caller: CallerOf,
  signal: AbortSignal,
  label: string,
): Promise<ElicitResult> {
  const read = readInputForm(params.message, params.requestedSchema);
  if (!read.ok)
    throw new Refusal(ErrorCode.InvalidParams, `Pincer refuses this form: ${read.reason}`);
  if (caller.kind === 'none')
    throw new Refusal(
      ErrorCode.InvalidRequest,
      'Pincer shows a form only while one of its tool calls to this server is in flight',
    );
  if (caller.kind === 'ambiguous')
    throw new Refusal(
      ErrorCode.InvalidRequest,
      'calls of several runs are in flight on this server: Pincer cannot tell which one asks',
    );
  const outcome = await inputs.request({
    runId: caller.runId as RunId,
    ...(caller.callId ? { callId: caller.callId } : {}),
    ...(caller.tool ? { tool: caller.tool } : {}),
    source: label,
    form: read.form,
    // The server withdrawing its request, the run being cancelled or the call ending: cancel.
    signal: AbortSignal.any([signal, caller.signal]),
  });
  const { answer } = outcome;
  return answer.action === 'accept'
    ? { action: 'accept', content: answer.content }
    : { action: answer.action };
}

async function sample(
  access: ModelAccess | undefined,
  params: CreateMessageRequest['params'],
  signal: AbortSignal,
  label: string,
  charge: (usage: Usage, costUsd: number) => void,
): Promise<CreateMessageResult> {
  if (!access) throw new Refusal(ErrorCode.InvalidRequest, 'no model is available for sampling');
  if (params.messages.length > SAMPLING_LIMITS.messages) {
    throw new Refusal(
      ErrorCode.InvalidParams,
      `sampling allows at most ${SAMPLING_LIMITS.messages} messages`,
    );
  }
  const stop = params.stopSequences?.slice(0, 4);
  let chars = (params.systemPrompt?.length ?? 0) + (stop?.join('').length ?? 0);
  const messages: Message[] = params.messages.map((message) => {
    const blocks = Array.isArray(message.content) ? message.content : [message.content];
    const text = blocks.map((block) => {
      if (block.type !== 'text') {
        throw new Refusal(ErrorCode.InvalidParams, `sampling takes text only, not ${block.type}`);
      }
      return block.text;
    });
    chars += text.reduce((sum, part) => sum + part.length, 0);
    return { role: message.role, content: text.map((part) => ({ type: 'text', text: part })) };
  });
  if (chars > SAMPLING_LIMITS.chars) {
    throw new Refusal(
      ErrorCode.InvalidParams,
      `sampling allows at most ${SAMPLING_LIMITS.chars} characters of prompt`,
    );
  }
  const turn = access.turn({
    ...(params.systemPrompt ? { system: params.systemPrompt } : {}),
    messages,
    maxTokens: Math.max(1, Math.min(params.maxTokens, SAMPLING_LIMITS.maxTokens)),
    ...(params.temperature !== undefined ? { temperature: params.temperature } : {}),
    ...(stop ? { stop } : {}),
    signal,
  });
  let text = '';
  let stopReason: string = 'endTurn';
  try {
    for await (const event of turn.events) {
      if (event.type === 'text_delta') text += event.text;
      else if (event.type === 'finish') {
        stopReason = stopReasonOf(event.stopReason);
        charge(event.usage, turn.cost(event.usage));
      } else if (event.type === 'connection_lost') throw event.error;
    }
  } catch (error) {
    if (error instanceof ModelError) {
      // The quota error keeps its CKP code so the server (and its tool's caller) can tell it apart.
      throw new Refusal(ckpCodeOf(error), `sampling for ${label}: ${error.message}`);
    }
    throw error;
  }
  return { role: 'assistant', content: { type: 'text', text }, model: turn.servedBy(), stopReason };
}

/**
 * A JSON-RPC error for the server: the SDK sends `code` and `message` as they are (its own
 * McpError would put "MCP error N:" in the message a second time on the server's side).
 */
class Refusal extends PincerError {
  override readonly name = 'McpRefusal';

  constructor(
    readonly code: number,
    message: string,
  ) {
    super(categoryOfCkpCode(code), message);
  }

  override get ckpCode(): number {
    return this.code;
  }
}

function stopReasonOf(reason: string): string {
  switch (reason) {
    case 'max_tokens':
      return 'maxTokens';
    case 'stop_sequence':
      return 'stopSequence';
    default:
      return 'endTurn';
  }
}
