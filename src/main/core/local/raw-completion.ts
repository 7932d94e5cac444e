/** Raw text continued on a conversation's sequence (no chat template), and the usage of a turn. */
import { LlamaCompletion, type LlamaContextSequence } from 'node-llama-cpp';
import { errorMessage, LocalEngineError } from './errors.js';
import type { Conversation } from './loaded-model.js';
import { clearSequence } from './prefix-reuse.js';
import type { CompleteRequest, GenerateResult } from './types.js';

export async function runCompletion(
  conversation: Conversation,
  request: CompleteRequest,
): Promise<GenerateResult> {
  if (!conversation.prefix) {
    // Raw text has no fixed prefix: it starts from an empty sequence, as it always did.
    conversation.prefix = [];
    await clearSequence(conversation.sequence);
  }
  const meterBefore = conversation.sequence.tokenMeter.getState();
  const sampling = request.sampling ?? {};
  const completion = new LlamaCompletion({
    contextSequence: conversation.sequence,
    autoDisposeSequence: false,
  });
  // Counted as they are released. At the token limit that count is wrong both ways (tokens
  // still held back, half a UTF-8 character, are dropped; a held token can be released twice),
  // so there it is the limit, or the meter where the context cut it shorter (the meter also
  // counts evaluating the last token, one more than was generated).
  let generated = 0;
  try {
    const response = await completion.generateCompletionWithMeta(request.prompt, {
      onTextChunk: request.onText,
      onToken: (tokens) => {
        generated += tokens.length;
      },
      signal: request.signal,
      stopOnAbortSignal: true,
      maxTokens: request.maxTokens,
      temperature: sampling.temperature,
      topP: sampling.topP,
      topK: sampling.topK,
      minP: sampling.minP,
      seed: sampling.seed,
      customStopTriggers: request.stop?.length ? request.stop : undefined,
    });
    const meta = response.metadata;
    if (meta.stopReason === 'maxTokens' && request.maxTokens !== undefined) {
      const metered =
        conversation.sequence.tokenMeter.getState().usedOutputTokens - meterBefore.usedOutputTokens;
      generated = Math.min(request.maxTokens, metered);
    }
    return {
      text: response.response,
      toolCalls: [],
      stopReason:
        meta.stopReason === 'abort'
          ? 'cancelled'
          : meta.stopReason === 'maxTokens'
            ? 'max_tokens'
            : meta.stopReason === 'customStopTrigger'
              ? 'stop_sequence'
              : 'end',
      usage: usageSince(conversation, meterBefore, generated),
    };
  } catch (error) {
    if (request.signal?.aborted) return cancelledResult(conversation, meterBefore);
    throw new LocalEngineError(
      'generation_failed',
      `Local completion failed: ${errorMessage(error)}`,
      { cause: error },
    );
  } finally {
    completion.dispose({ disposeSequence: false });
  }
}

export function usageSince(
  conversation: Conversation,
  before: ReturnType<LlamaContextSequence['tokenMeter']['getState']>,
  generated?: number,
): GenerateResult['usage'] {
  const now = conversation.sequence.tokenMeter.getState();
  const outputTokens = generated ?? now.usedOutputTokens - before.usedOutputTokens;
  return {
    inputTokens: Math.max(0, conversation.sequence.contextTokens.length - outputTokens),
    evaluatedInputTokens: now.usedInputTokens - before.usedInputTokens,
    outputTokens,
  };
}

export function cancelledResult(
  conversation: Conversation,
  before: ReturnType<LlamaContextSequence['tokenMeter']['getState']>,
): GenerateResult {
  return {
    text: '',
    toolCalls: [],
    stopReason: 'cancelled',
    usage: usageSince(conversation, before),
  };
}
