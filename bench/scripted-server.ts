/**
 * An OpenAI-compatible chat server on 127.0.0.1 that answers instantly from a script, so a
 * benchmark measures Pincer and not a model: a message that says "read" gets one call of the
 * offered tool whose name contains "read" (on `note.txt`); a tool result, or any other message,
 * gets a short text reply. A message that says "slowly" has its reply written over WRITE_MS, as
 * a model writes: the call's name first, its arguments WRITE_MS later. It records when each
 * request arrived and when its reply ended.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedServer {
  /** Base URL for `--endpoint`, e.g. http://127.0.0.1:PORT/v1 */
  url: string;
  /**
   * Per request: arrival, end of the reply (performance.now() of this process), body bytes, and
   * whether it carried a system message (Pincer's calls do; the bare baselines' do not).
   */
  calls: Array<{ arrived: number; ended: number; bytes: number; system: boolean }>;
  close(): Promise<void>;
}

interface ChatBody {
  stream?: boolean;
  messages?: Array<{ role?: string; content?: unknown }>;
  tools?: Array<{ function?: { name?: string } }>;
}

/** How long a "slowly" reply takes to write. */
export const WRITE_MS = 200;

const chunk = (delta: unknown, finish: string | null = null) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'scripted',
    choices: [{ index: 0, delta, finish_reason: finish }],
  })}\n\n`;

/** The reply's frames; a null between them is a pause of WRITE_MS. */
function replyFrames(body: ChatBody): Array<string | null> {
  const messages = body.messages ?? [];
  const last = messages.at(-1);
  const reader = body.tools?.find((tool) => /read/.test(tool.function?.name ?? ''))?.function;
  const asksToRead =
    last?.role === 'user' && JSON.stringify(last.content ?? '').includes('read') && reader?.name;
  const pause = last?.role === 'user' && JSON.stringify(last.content ?? '').includes('slowly');
  const frames: Array<string | null> = [chunk({ role: 'assistant', content: '' })];
  const call = (fn: Record<string, string>) =>
    chunk({
      tool_calls: [
        { index: 0, ...(fn.name ? { id: 'call_1', type: 'function' } : {}), function: fn },
      ],
    });
  if (asksToRead && pause) {
    frames.push(
      call({ name: reader?.name ?? '', arguments: '' }),
      null,
      call({ arguments: '{"path":"note.txt"}' }),
      chunk({}, 'tool_calls'),
    );
  } else if (asksToRead) {
    frames.push(
      call({ name: reader?.name ?? '', arguments: '{"path":"note.txt"}' }),
      chunk({}, 'tool_calls'),
    );
  } else {
    frames.push(
      chunk({ content: 'Hello' }),
      ...(pause ? [null] : []),
      chunk({ content: ' there.' }),
      chunk({}, 'stop'),
    );
  }
  frames.push(
    `data: ${JSON.stringify({
      id: 'chatcmpl-bench',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'scripted',
      choices: [],
      usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
    })}\n\n`,
    'data: [DONE]\n\n',
  );
  return frames;
}

export async function startScriptedServer(): Promise<ScriptedServer> {
  const calls: ScriptedServer['calls'] = [];
  const server = createServer(async (req, res) => {
    const arrived = performance.now();
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const raw = Buffer.concat(parts);
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404).end();
      return;
    }
    let body: ChatBody = {};
    try {
      body = JSON.parse(raw.toString('utf8')) as ChatBody;
    } catch {
      res.writeHead(400).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let pending = '';
    for (const frame of replyFrames(body)) {
      if (frame !== null) {
        pending += frame;
        continue;
      }
      res.write(pending);
      pending = '';
      await new Promise((resolve) => setTimeout(resolve, WRITE_MS));
    }
    res.end(pending);
    const system = (body.messages ?? []).some((message) => message.role === 'system');
    calls.push({ arrived, ended: performance.now(), bytes: raw.length, system });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    calls,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
