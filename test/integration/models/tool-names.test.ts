/**
 * Canonical tool names stop at the model layer: every HTTP adapter sends `fs__read` to a real
 * vendor server on 127.0.0.1 (tools, history, forced choice) and hands back the model's calls
 * as `fs/read`, so nothing above the providers ever sees the wire spelling.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envLookup } from '../../../src/main/core/models/credentials.js';
import { type HttpProtocol, HttpProvider } from '../../../src/main/core/models/http-provider.js';
import { providerId } from '../../../src/main/core/models/ids.js';
import type { ModelEvent } from '../../../src/main/core/models/types.js';
import type { Message, ToolDef } from '../../../src/shared/messages.js';
import { startVendorServer, type VendorServer } from '../../fixtures/vendor-server.js';
import {
  anthropicFrames,
  geminiFrames,
  openaiFrames,
  responsesFrames,
  type Turn,
} from '../../fixtures/vendor-streams.js';

const CASES: { protocol: HttpProtocol; frames: (turn: Turn) => string[]; prefix: string }[] = [
  { protocol: 'openai-compatible', frames: openaiFrames, prefix: '/v1' },
  { protocol: 'responses', frames: responsesFrames, prefix: '/v1' },
  { protocol: 'anthropic', frames: anthropicFrames, prefix: '/v1' },
  { protocol: 'gemini', frames: geminiFrames, prefix: '/v1beta' },
];

const TOOLS: ToolDef[] = [
  {
    name: 'fs/read',
    description: 'Read a file',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
];

const HISTORY: Message[] = [
  { role: 'user', content: [{ type: 'text', text: 'Read a.txt, then b.txt.' }] },
  {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'call_a', name: 'fs/read', input: { path: 'a.txt' } }],
  },
  { role: 'user', content: [{ type: 'tool_result', toolUseId: 'call_a', content: 'alpha' }] },
];

describe.each(CASES)('$protocol provider', ({ protocol, frames, prefix }) => {
  let server: VendorServer;
  beforeAll(async () => {
    server = await startVendorServer(prefix);
  });
  afterAll(() => server.close());

  it('sends wire names and returns canonical ones', async () => {
    server.reply({
      kind: 'sse',
      frames: frames({ tools: [{ id: 'call_b', name: 'fs__read', args: ['{"path":"b.txt"}'] }] }),
    });
    const provider = new HttpProvider({
      id: providerId('vendor'),
      protocol,
      endpoint: server.url,
      apiKey: 'sk-test',
      secrets: envLookup({}),
    });
    const events: ModelEvent[] = [];
    for await (const event of provider.stream('m', { messages: HISTORY, tools: TOOLS })) {
      events.push(event);
    }
    const sent = JSON.stringify(server.requests.at(-1)?.body);
    expect(sent).toContain('fs__read');
    expect(sent).not.toContain('fs/read');

    const started = events.flatMap((e) => (e.type === 'tool_call_start' ? [e.name] : []));
    expect(started).toEqual(['fs/read']);
    const finish = events.at(-1);
    if (finish?.type !== 'finish') throw new Error(`expected finish, got ${finish?.type}`);
    expect(finish.message.content.filter((b) => b.type === 'tool_use')).toMatchObject([
      { name: 'fs/read', input: { path: 'b.txt' } },
    ]);
  });
});
