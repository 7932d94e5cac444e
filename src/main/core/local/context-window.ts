/**
 * The loaded local model's window and measure for fitRequestToContext: the tool definitions and
 * system text counted as its chat format writes them, history in its own tokens.
 */
import type { ContentBlock, Message } from '../../../shared/messages.js';
import { type ContextWindow, describeTools, toWireNames } from '../models/index.js';
import type { EngineMeasure } from './engine.js';

/** The chat format's markers around one message (`<|im_start|>role\n … <|im_end|>\n`). */
const MESSAGE_FRAME_TOKENS = 6;

export interface LocalWindowOptions {
  /** Tools described in the system text (the tool-call language) instead of native functions. */
  textTools?: boolean;
}

export function localContextWindow(
  measured: EngineMeasure,
  options: LocalWindowOptions = {},
): ContextWindow {
  const written = (block: ContentBlock): string => {
    switch (block.type) {
      case 'text':
      case 'reasoning':
        return block.text;
      case 'tool_use':
        return `${block.name} ${JSON.stringify(block.input)}`;
      case 'tool_result':
        return typeof block.content === 'string'
          ? block.content
          : block.content.map(written).join('');
      case 'image':
        return '';
    }
  };
  return {
    tokens: measured.contextSize,
    measure: {
      prefix: (system, tools) => {
        if (options.textTools) {
          const text = [system, tools.length ? describeTools(tools) : undefined];
          return measured.prefix(text.filter(Boolean).join('\n\n'), []);
        }
        // The engine reads the wire spelling of each name, as the provider sends it.
        const wire = toWireNames({ messages: [], tools: [...tools] }).request.tools ?? [];
        return measured.prefix(system, wire);
      },
      message: (message: Message) =>
        measured.text(message.content.map(written).join('\n')) + MESSAGE_FRAME_TOKENS,
    },
  };
}
