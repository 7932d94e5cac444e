/** Measuring prompts against a loaded model's context, in its own tokens and chat format. */
import type { ChatModelFunctions, ChatWrapper, GbnfJsonSchema } from 'node-llama-cpp';
import { LocalEngineError } from './errors.js';
import { toChatHistory } from './history.js';
import type { Loaded } from './loaded-model.js';
import type { LocalToolDef } from './types.js';

/** Counts in a loaded model's own tokens, for fitting a request to its context. */
export interface EngineMeasure {
  contextSize: number;
  /** The system text and tool definitions as the model's chat format writes them. */
  prefix(system: string | undefined, tools: readonly LocalToolDef[]): number;
  text(text: string): number;
}

export function functionsOf(tools: readonly LocalToolDef[]): ChatModelFunctions {
  return Object.fromEntries(
    tools.map((tool) => [
      tool.name,
      { description: tool.description, params: tool.parameters as GbnfJsonSchema | undefined },
    ]),
  );
}

/** Tokens of the system text and tool definitions as the model's chat format writes them. */
export function promptFloor(
  wrapper: ChatWrapper,
  system: string | undefined,
  functions: ChatModelFunctions | undefined,
  loaded: Loaded,
): number {
  const { contextText } = wrapper.generateContextState({
    chatHistory: toChatHistory(system, []),
    availableFunctions: functions,
  });
  return contextText.tokenize(loaded.model.tokenizer).length;
}

export function contextTooSmall(
  needed: number,
  contextSize: number,
  toolCount: number,
  cause?: unknown,
): LocalEngineError {
  const what =
    toolCount > 0 ? `the instructions and ${toolCount} tool definitions` : 'the instructions';
  return new LocalEngineError(
    'context_too_small',
    `This model's context holds ${contextSize} tokens; ${what} take ${needed}, leaving no room ` +
      'for the conversation. Offer fewer tools or a larger context (on the command line: --tools, ' +
      '--context-size; in the app: the chat’s Tools menu, Settings → Model behaviour → Context ' +
      'size), or choose a model with a larger context.',
    { cause },
  );
}
