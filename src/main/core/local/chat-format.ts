import {
  type ChatWrapper,
  type ChatWrapperGenerateContextStateOptions,
  type ChatWrapperGeneratedPrefixTriggersContextState,
  type LlamaModel,
  LlamaText,
  QwenChatWrapper,
  resolveChatWrapper,
} from 'node-llama-cpp';

/**
 * Picks the chat wrapper from the GGUF's chat template. Templates that speak Hermes-style
 * `<tool_call>` JSON inside ChatML (Qwen2.5 and its fine-tunes) get node-llama-cpp's Qwen
 * wrapper, whose function calling is grammar-constrained; anything else is resolved by
 * node-llama-cpp itself (a specialised wrapper, or the Jinja template as a fallback).
 */
export function chatWrapperFor(model: LlamaModel): ChatWrapper {
  const template = model.fileInfo.metadata.tokenizer?.chat_template ?? '';
  if (template.includes('<|im_start|>') && template.includes('<tool_call>')) {
    // Qwen2.5 has no thinking mode; discourage `<think>` segments.
    return new QwenChatWrapper({ thoughts: 'discourage' });
  }
  return resolveChatWrapper(model) ?? new QwenChatWrapper({ thoughts: 'discourage' });
}

/**
 * The same wrapper, but generation starts in function-calling mode, so the model must call
 * one of the tools (the cloud APIs' `tool_choice: required`). Grammar then picks a tool name
 * and arguments valid for its schema.
 */
export function requireToolCall(wrapper: ChatWrapper): ChatWrapper {
  const forced = Object.create(wrapper) as ChatWrapper;
  forced.generateContextState = (options: ChatWrapperGenerateContextStateOptions) => {
    const state = wrapper.generateContextState.call(forced, options);
    if (state.functionCall) return state;
    const { prefixTriggers: _ignored, ...rest } =
      state as ChatWrapperGeneratedPrefixTriggersContextState;
    return { ...rest, noPrefixTrigger: { type: 'functionCall', inject: LlamaText([]) } };
  };
  return forced;
}
