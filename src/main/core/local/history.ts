import type { ChatHistoryItem, ChatModelFunctionCall, ChatModelResponse } from 'node-llama-cpp';
import { LocalEngineError } from './errors.js';
import type { LocalMessage } from './types.js';

/**
 * Turns provider-neutral messages into node-llama-cpp chat history. node-llama-cpp renders a
 * function-calling loop as ONE model response holding text, calls and their results, so an
 * assistant message, its tool results and the assistant text after them merge into one item.
 * The history always ends with a model response for generation to continue.
 */
export function toChatHistory(
  system: string | undefined,
  messages: LocalMessage[],
): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = [];
  if (system) history.push({ type: 'system', text: system });
  let open: ChatModelResponse | undefined;
  const unanswered = new Map<string, ChatModelFunctionCall>();
  for (const message of messages) {
    if (message.role === 'user') {
      if (unanswered.size > 0) throw unansweredError(unanswered);
      history.push({ type: 'user', text: message.text });
      open = undefined;
    } else if (message.role === 'assistant') {
      if (unanswered.size > 0) throw unansweredError(unanswered);
      if (!open) {
        open = { type: 'model', response: [] };
        history.push(open);
      }
      if (message.text) open.response.push(message.text);
      for (const call of message.toolCalls ?? []) {
        const item: ChatModelFunctionCall = {
          type: 'functionCall',
          name: call.name,
          params: call.arguments,
          result: undefined,
        };
        open.response.push(item);
        unanswered.set(call.id, item);
      }
    } else {
      const call = unanswered.get(message.toolCallId);
      if (!call) {
        throw new LocalEngineError(
          'invalid_request',
          `A tool result refers to call "${message.toolCallId}", which no assistant message made or which was already answered`,
        );
      }
      call.result = message.result;
      unanswered.delete(message.toolCallId);
    }
  }
  if (unanswered.size > 0) throw unansweredError(unanswered);
  if (history.at(-1)?.type !== 'model') history.push({ type: 'model', response: [] });
  return history;
}

function unansweredError(unanswered: Map<string, ChatModelFunctionCall>): LocalEngineError {
  return new LocalEngineError(
    'invalid_request',
    `Tool call(s) ${[...unanswered.keys()].join(', ')} have no result; send a tool message for each before continuing`,
  );
}
