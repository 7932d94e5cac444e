/**
 * Model-layer overhead per turn (#3): serializing a 50-message, 20-tool conversation into each
 * wire format, and parsing a 10k-token stream through SSE + adapter + assembler, each against a
 * baseline of plain JSON.stringify / JSON.parse of the same payload.
 */

import { StreamAssembler } from '../src/main/core/models/assembler.js';
import { ADAPTERS } from '../src/main/core/models/http-provider.js';
import { providerId } from '../src/main/core/models/ids.js';
import { sseEvents } from '../src/main/core/models/sse.js';
import type { ModelRequest } from '../src/main/core/models/types.js';
import type { Message, ToolDef } from '../src/shared/messages.js';
import {
  anthropicFrames,
  geminiFrames,
  openaiFrames,
  responsesFrames,
  type Turn,
} from '../test/fixtures/vendor-streams.js';
import { measure, report } from './lib.js';

const provider = providerId('bench');

function conversation(): ModelRequest {
  const tools: ToolDef[] = Array.from({ length: 20 }, (_, i) => ({
    name: `tool_${i}`,
    description: `Tool number ${i}: does a thing with a path and some options.`,
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'A file path' },
        recursive: { type: 'boolean' },
        limit: { type: 'integer', minimum: 1, maximum: 1000 },
      },
      required: ['path'],
    },
  }));
  const messages: Message[] = [];
  for (let i = 0; i < 25; i++) {
    messages.push({
      role: 'user',
      content: [{ type: 'text', text: `Question ${i}: ${'lorem ipsum '.repeat(20)}` }],
    });
    messages.push(
      i % 3 === 0
        ? {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Checking.' },
              {
                type: 'tool_use',
                id: `call_${i}`,
                name: `tool_${i % 20}`,
                input: { path: `/tmp/${i}`, limit: i + 1 },
              },
            ],
          }
        : {
            role: 'assistant',
            content: [{ type: 'text', text: `Answer ${i}: ${'dolor sit amet '.repeat(15)}` }],
          },
    );
  }
  return { system: 'You are terse.', messages, tools, maxTokens: 1024 };
}

/** A 10k-token turn: text in one-token deltas, then a tool call in 200 argument fragments. */
function bigTurn(): Turn {
  const text = Array.from({ length: 9800 }, (_, i) => (i % 7 === 0 ? ' word' : 'é'));
  const args = JSON.stringify({ path: '/tmp/x', note: 'n'.repeat(2000) });
  const step = Math.ceil(args.length / 200);
  const pieces = Array.from({ length: Math.ceil(args.length / step) }, (_, i) =>
    args.slice(i * step, (i + 1) * step),
  );
  return {
    text,
    tools: [{ id: 'call_1', name: 'tool_1', args: pieces }],
    usage: { input: 5000, output: 10000 },
  };
}

function chunked(text: string, size = 4096): Uint8Array[] {
  const bytes = Buffer.from(text, 'utf8');
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return out;
}

async function* iterate(chunks: Uint8Array[]) {
  for (const chunk of chunks) yield chunk;
}

export async function run(): Promise<void> {
  const request = conversation();
  const payload = JSON.stringify(request);

  for (const adapter of Object.values(ADAPTERS)) {
    const build = () =>
      JSON.stringify(
        adapter.build({
          model: 'm',
          request,
          endpoint: 'http://127.0.0.1:1/v1',
          apiKey: 'k',
          stream: true,
          defaultMaxTokens: 1024,
        }).body,
      );
    report(
      `serialize 50 messages + 20 tools: ${adapter.protocol} (request bytes ${build().length})`,
      await measure(
        [
          { name: 'baseline JSON.stringify(request)', fn: () => JSON.stringify(request) },
          { name: 'baseline parse+stringify', fn: () => JSON.stringify(JSON.parse(payload)) },
          { name: `${adapter.protocol} build + stringify`, fn: build },
        ],
        { samples: 15, iterations: 200 },
      ),
    );
  }

  const turn = bigTurn();
  const streams = {
    'openai-compatible': openaiFrames,
    responses: responsesFrames,
    anthropic: anthropicFrames,
    gemini: geminiFrames,
  } as const;
  for (const [protocol, frames] of Object.entries(streams) as [
    keyof typeof streams,
    (t: Turn) => string[],
  ][]) {
    const adapter = ADAPTERS[protocol];
    const text = frames(turn).join('');
    const chunks = chunked(text);
    const baseline = () => {
      // The least any client must do: find each data line and JSON.parse it.
      for (const line of text.split('\n')) {
        if (line.startsWith('data: ') && line !== 'data: [DONE]') JSON.parse(line.slice(6));
      }
    };
    const parse = async () => {
      const assembler = new StreamAssembler(provider);
      let events = 0;
      for await (const _ of adapter.parseStream(
        sseEvents(iterate(chunks), provider),
        assembler,
        provider,
      ))
        events++;
      return events;
    };
    report(
      `stream 10k tokens: ${protocol} (${(text.length / 1024).toFixed(0)} KiB of SSE)`,
      await measure(
        [
          { name: 'baseline split + JSON.parse per event', fn: baseline },
          { name: `${protocol} SSE + adapter + assembler`, fn: parse },
        ],
        { samples: 11, iterations: 3 },
      ),
    );
  }
}
