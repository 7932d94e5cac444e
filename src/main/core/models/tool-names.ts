/**
 * Tool names on the wire. Above the model layer a tool is called by its canonical name
 * (`fs/write`); model APIs accept only `^[a-zA-Z0-9_-]{1,64}$`, so a provider sends `fs__write`
 * and turns the model's calls back into canonical names before anyone else sees them.
 */
import type { ContentBlock, Message } from '../../../shared/messages.js';
import type { ModelEvent, ModelRequest } from './types.js';

export const WIRE_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export function wireToolName(name: string): string {
  return name.replaceAll('/', '__');
}

/** A request in wire names, and the way back for the names the model answers with. */
export function toWireNames(request: ModelRequest): {
  request: ModelRequest;
  canonical: (wire: string) => string;
} {
  const back = new Map<string, string>();
  const wire = (name: string) => {
    const spelled = wireToolName(name);
    back.set(spelled, name);
    return spelled;
  };
  const messages = request.messages.map((message) => renameMessage(message, wire));
  const tools = request.tools?.map((tool) => ({ ...tool, name: wire(tool.name) }));
  const toolChoice =
    typeof request.toolChoice === 'object'
      ? { name: wire(request.toolChoice.name) }
      : request.toolChoice;
  return {
    request: { ...request, messages, tools, toolChoice },
    // A name the request never offered stays as the model wrote it: the registry refuses it.
    canonical: (name) => back.get(name) ?? name,
  };
}

/** The model's events with every tool name canonical. */
export async function* withCanonicalNames(
  events: AsyncIterable<ModelEvent>,
  canonical: (wire: string) => string,
): AsyncGenerator<ModelEvent> {
  for await (const event of events) {
    switch (event.type) {
      case 'tool_call_start':
        yield { ...event, name: canonical(event.name) };
        break;
      case 'finish':
        yield { ...event, message: renameMessage(event.message, canonical) };
        break;
      case 'connection_lost':
        yield { ...event, partial: renameMessage(event.partial, canonical) };
        break;
      default:
        yield event;
    }
  }
}

function renameMessage(message: Message, rename: (name: string) => string): Message {
  if (!message.content.some((block) => block.type === 'tool_use')) return message;
  return {
    ...message,
    content: message.content.map(
      (block): ContentBlock =>
        block.type === 'tool_use' ? { ...block, name: rename(block.name) } : block,
    ),
  };
}
