/**
 * The product suite's model: an OpenAI-compatible chat server on 127.0.0.1 that answers every
 * request by what it was asked, so any number of runs (a cron firing each second, a swarm's
 * workers, a page's title request) get an answer without a queue of replies to keep in step.
 * The rule: the last user text `t` is answered `echo: t`; a turn after a tool result, `done`.
 * Two scripts in the text: `call WIRE_NAME {json}` answers with that tool call instead, and a
 * leading `slow MS ` holds the answer that long (something to cancel while it runs).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openaiFrames } from '../../fixtures/vendor-streams.js';

export interface ScriptedModel {
  /** Base URL, http://127.0.0.1:PORT/v1 */
  url: string;
  /** `--protocol openai-compatible --endpoint <url> --model m`: what every surface is given. */
  args: string[];
  /** The last user text of each chat request, in order. */
  asked: string[];
  close(): Promise<void>;
}

interface ChatBody {
  stream?: boolean;
  messages?: Array<{ role: string; content: unknown }>;
}

/** The text of a message's content: a string, or the text parts of an array. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (part && typeof part === 'object' && 'text' in part ? String(part.text) : ''))
    .join('');
}

export function answerTo(body: ChatBody): {
  asked: string;
  answer: string;
  call?: { name: string; args: string };
  delayMs?: number;
} {
  const messages = body.messages ?? [];
  const last = messages.at(-1);
  if (last?.role === 'tool') return { asked: '', answer: 'done' };
  const user = [...messages].reverse().find((message) => message.role === 'user');
  const asked = textOf(user?.content);
  const slow = /^slow (\d+) /.exec(asked);
  const call = /(?:^|\n)call ([\w-]+) (\{.*\})\s*$/.exec(asked);
  return {
    asked,
    answer: `echo: ${asked}`,
    ...(call ? { call: { name: call[1] as string, args: call[2] as string } } : {}),
    ...(slow ? { delayMs: Number(slow[1]) } : {}),
  };
}

export async function startScriptedModel(): Promise<ScriptedModel> {
  const asked: string[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const route = (request.url ?? '').replace(/^\/v1/, '');
    if (request.method === 'GET' && route.startsWith('/models')) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model' }] }));
      return;
    }
    if (request.method !== 'POST' || !route.startsWith('/chat/completions')) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `scripted model: no ${route}` } }));
      return;
    }
    let body: ChatBody = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatBody;
    } catch {
      response.writeHead(400).end();
      return;
    }
    const turn = answerTo(body);
    asked.push(turn.asked);
    if (turn.delayMs) {
      // Held, unless the client gives up first (a cancelled run closes its request).
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, turn.delayMs);
        response.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      if (response.destroyed) return;
    }
    if (body.stream) {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      response.end(
        openaiFrames(
          turn.call
            ? { tools: [{ id: 'call-1', name: turn.call.name, args: [turn.call.args] }] }
            : { text: [turn.answer] },
        ).join(''),
      );
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'm',
        choices: [
          {
            index: 0,
            message: turn.call
              ? {
                  role: 'assistant',
                  content: null,
                  tool_calls: [
                    {
                      id: 'call-1',
                      type: 'function',
                      function: { name: turn.call.name, arguments: turn.call.args },
                    },
                  ],
                }
              : { role: 'assistant', content: turn.answer },
            finish_reason: turn.call ? 'tool_calls' : 'stop',
          },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    url,
    args: ['--protocol', 'openai-compatible', '--endpoint', url, '--model', 'm'],
    asked,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
