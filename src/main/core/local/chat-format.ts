import {
  type ChatModelFunctions,
  type ChatWrapper,
  type ChatWrapperGenerateContextStateOptions,
  type ChatWrapperGeneratedPrefixTriggersContextState,
  type LlamaModel,
  LlamaText,
  QwenChatWrapper,
  resolveChatWrapper,
  SpecialTokensText,
} from 'node-llama-cpp';
import { toolSignature } from './tool-signatures.js';

/**
 * Qwen's chat format with the tool definitions written as one-line signatures
 * (tool-signatures.ts) instead of JSON schemas; the call format, and the grammar that holds
 * calls to it, are Qwen's own.
 */
export class CompactToolsQwenChatWrapper extends QwenChatWrapper {
  override generateAvailableFunctionsSystemText(
    availableFunctions: ChatModelFunctions,
    options: { documentParams?: boolean },
  ): LlamaText {
    const entries = Object.entries(availableFunctions);
    if (entries.length === 0 || this.variation !== '3')
      return super.generateAvailableFunctionsSystemText(availableFunctions, options);
    return LlamaText.joinValues('\n', [
      '# Tools',
      '',
      'You may call one or more functions to assist with the user query. Their signatures (? marks an optional argument):',
      LlamaText(new SpecialTokensText('<tools>')),
      ...entries.map(([name, fn]) =>
        toolSignature(
          name,
          fn.description,
          options.documentParams === false ? undefined : fn.params,
        ),
      ),
      LlamaText(new SpecialTokensText('</tools>')),
      '',
      LlamaText(
        'For each function call, return a json object with function name and arguments within ',
        new SpecialTokensText('<tool_call></tool_call>'),
        ' XML tags:',
      ),
      LlamaText(new SpecialTokensText('<tool_call>')),
      '{"name": <function-name>, "arguments": <args-json-object>}',
      LlamaText(new SpecialTokensText('</tool_call>')),
    ]);
  }
}

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
    return new CompactToolsQwenChatWrapper({ thoughts: 'discourage' });
  }
  return resolveChatWrapper(model) ?? new CompactToolsQwenChatWrapper({ thoughts: 'discourage' });
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
