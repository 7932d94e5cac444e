/**
 * Tool calls for models that only write text: a provider without native tool calling, or the
 * local engine writing seed 000's compact language under its own grammar. The tools are
 * described in the system text; the model writes `@ns/tool{k=v}` lines; the reply is parsed
 * with the strict parser (no free-form fallback: a line that does not parse stays text and runs
 * nothing) and the calls come back as ordinary tool-use blocks, so the runtime, validation and
 * policy cannot tell the difference. History goes the other way: earlier tool uses become
 * call lines and their results become plain text the model can read.
 */
import type {
  ContentBlock,
  Message,
  ToolDef,
  ToolResultBlock,
  ToolUseBlock,
} from '../../../shared/messages.js';
import {
  extractToolCalls,
  formatInvoke,
  fromNativeCall,
  isToolCallSyntaxError,
  type ToolCallProgram,
  toNativeCalls,
  toolCallGbnf,
} from '../toolcall/index.js';
import type { ModelEvent, ModelProvider, ModelRequest } from './types.js';

export interface TextToolOptions {
  /**
   * Constrain the local engine's reply to answers and calls of the allowed tools: the compact
   * language's GBNF (toolcall/gbnf.ts) goes to it as `providerOptions.local.gbnf`.
   */
  grammar?: boolean;
  /** Longest string literal the grammar admits (default 256). */
  maxString?: number;
}

/** History stored before tool names were canonical spells `fs/read` as `fs__read`. */
const languageName = (name: string) => name.replaceAll('__', '/');

export function withTextToolCalls(
  inner: ModelProvider,
  options: TextToolOptions = {},
): ModelProvider {
  return {
    id: inner.id,
    protocol: inner.protocol,
    async *stream(model, request) {
      const tools = request.toolChoice === 'none' ? [] : (request.tools ?? []);
      if (tools.length === 0) {
        yield* inner.stream(model, { ...request, tools: undefined });
        return;
      }
      const namespaces = namespacesOf(tools);
      const rewritten: ModelRequest = {
        ...request,
        system: [request.system, describeTools(tools)].filter(Boolean).join('\n\n'),
        messages: request.messages.map((message) => asText(message, request.messages)),
        tools: undefined,
        toolChoice: undefined,
        ...(options.grammar
          ? {
              providerOptions: {
                ...request.providerOptions,
                local: {
                  ...request.providerOptions?.local,
                  gbnf: toolCallGbnf(
                    tools.map((tool) => ({
                      name: tool.name,
                      inputSchema: tool.parameters,
                    })),
                    {
                      allowText: request.toolChoice !== 'required',
                      namespaces,
                      // Without references a chain is only calls in order: one step, or a group.
                      references: false,
                      maxChain: 1,
                      maxString: options.maxString ?? 256,
                    },
                  ),
                },
              },
            }
          : {}),
      };
      const held = new LineHold();
      for await (const event of inner.stream(model, rewritten)) {
        if (event.type === 'text_delta') {
          const shown = held.push(event.text);
          if (shown) yield { type: 'text_delta', text: shown };
        } else if (event.type === 'finish') {
          const { message, calls, unparsed } = toolUses(event.message, namespaces);
          const rest = held.flush(unparsed);
          if (rest) yield { type: 'text_delta', text: rest };
          yield {
            ...event,
            message,
            stopReason: calls > 0 ? 'tool_use' : event.stopReason,
          } satisfies ModelEvent;
        } else {
          yield event;
        }
      }
    },
  };
}

function namespacesOf(tools: readonly ToolDef[]): string[] {
  const spaces = new Set<string>();
  for (const tool of tools) {
    const name = languageName(tool.name);
    if (name.includes('/')) spaces.add(name.slice(0, name.indexOf('/')));
  }
  return [...spaces];
}

/** The system text that teaches the format: one line per tool, then the rules. */
export function describeTools(tools: readonly ToolDef[]): string {
  const lines = tools.map((tool) => {
    const args = argumentSummary(tool.parameters);
    return `- @${languageName(tool.name)}{${args}}${tool.description ? ` — ${tool.description}` : ''}`;
  });
  return [
    '# Tools',
    'To use a tool, write its call alone on a line, exactly in this form, and then stop:',
    '@fs/read{path="notes.md"; limit=20}',
    'Strings in double quotes, numbers as digits, true/false, arrays in [ ]. Independent calls',
    'may share one line as [@a{...}, @b{...}]. The results arrive in the next message.',
    'Answer in plain text when no tool is needed. Available tools:',
    ...lines,
  ].join('\n');
}

function argumentSummary(schema: ToolDef['parameters']): string {
  const properties = (schema?.properties ?? {}) as Record<string, { type?: unknown }>;
  const required = new Set(Array.isArray(schema?.required) ? (schema.required as string[]) : []);
  return Object.entries(properties)
    .map(([key, spec]) => {
      const type = Array.isArray(spec.type) ? spec.type.join('|') : String(spec.type ?? 'any');
      return `${key}=${type}${required.has(key) ? '' : '?'}`;
    })
    .join('; ');
}

/** Earlier tool uses and results, as text this model reads and writes. */
function asText(message: Message, history: readonly Message[]): Message {
  const content: ContentBlock[] = [];
  for (const block of message.content) {
    if (block.type === 'tool_use') content.push({ type: 'text', text: callLine(block) });
    else if (block.type === 'tool_result')
      content.push({ type: 'text', text: resultText(block, history) });
    else content.push(block);
  }
  return { ...message, content };
}

function callLine(block: ToolUseBlock): string {
  try {
    return formatInvoke(
      fromNativeCall({ name: languageName(block.name), arguments: block.input }, [
        languageName(block.name).split('/')[0] ?? '',
      ]),
    );
  } catch {
    // A name or value the language cannot spell: say what happened in words instead.
    return `(called ${languageName(block.name)} with ${JSON.stringify(block.input)})`;
  }
}

function resultText(block: ToolResultBlock, history: readonly Message[]): string {
  const use = history
    .flatMap((m) => m.content)
    .find((b): b is ToolUseBlock => b.type === 'tool_use' && b.id === block.toolUseId);
  const name = use ? `@${languageName(use.name)}` : 'a tool';
  const body =
    typeof block.content === 'string'
      ? block.content
      : block.content.map((part) => (part.type === 'text' ? part.text : '[image]')).join('');
  return `${block.isError ? 'Error from' : 'Result of'} ${name}:\n${body}`;
}

let counter = 0;
const callId = () => `call_t${Date.now().toString(36)}_${(counter++).toString(36)}`;

/** The finished reply with its call lines turned into tool-use blocks. */
function toolUses(
  message: Message,
  namespaces: readonly string[],
): { message: Message; calls: number; unparsed: boolean } {
  const text = message.content
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('');
  let programs: ToolCallProgram[];
  let prose: string;
  try {
    ({ programs, text: prose } = extractToolCalls(text, { namespaces }));
  } catch (error) {
    if (!isToolCallSyntaxError(error)) throw error;
    return { message, calls: 0, unparsed: true };
  }
  const uses: ToolUseBlock[] = [];
  try {
    for (const program of programs) {
      for (const call of toNativeCalls(program)) {
        uses.push({
          type: 'tool_use',
          id: callId(),
          name: call.name,
          input: call.arguments,
        });
      }
    }
  } catch {
    // References ($prev...) need the runtime's direct mode; from a model they stay text.
    return { message, calls: 0, unparsed: true };
  }
  if (uses.length === 0) return { message, calls: 0, unparsed: false };
  const others = message.content.filter((block) => block.type !== 'text');
  return {
    message: {
      ...message,
      content: [...others, ...(prose ? [{ type: 'text' as const, text: prose }] : []), ...uses],
    },
    calls: uses.length,
    unparsed: false,
  };
}

/**
 * Streams text but holds back lines that open like a call: a person sees the prose as it is
 * written and the call as a tool card, not as raw syntax. Held lines that turn out not to be
 * calls are released at the end.
 */
class LineHold {
  private line = '';
  private heldLines = '';

  push(text: string): string {
    let shown = '';
    for (const ch of text) {
      this.line += ch;
      if (ch === '\n') {
        if (opensLikeCall(this.line)) this.heldLines += this.line;
        else shown += this.line;
        this.line = '';
      }
    }
    // A partial line is shown at once unless it may still become a call.
    if (this.line && !mayOpenCall(this.line)) {
      shown += this.line;
      this.line = '';
    }
    return shown;
  }

  /** What was held: all of it when the reply's calls did not parse, else any trailing prose. */
  flush(release: boolean): string {
    const out = release ? this.heldLines + this.line : opensLikeCall(this.line) ? '' : this.line;
    this.line = '';
    this.heldLines = '';
    return out;
  }
}

const opensLikeCall = (line: string) => /^\s*(\[\s*)?@|^```toolcall/.test(line);
const mayOpenCall = (partial: string) => /^\s*(\[\s*)?(@.*)?$|^`{1,3}(t[a-z]*)?$/.test(partial);
