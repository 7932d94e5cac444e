/**
 * The Streamable HTTP listener of the MCP server module with a real SDK server behind it: what is
 * refused before the SDK sees it (path, Origin, token, session), and a real client's session
 * opened, used and ended.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, expect, it } from 'vitest';
import { loopbackOrigin } from '../../../src/main/core/mcp-server/http.js';
import { listenMcpHttp, type McpHttpListener } from '../../../src/main/core/mcp-server/index.js';

const TOKEN = 'listener-test-token';
let listener: McpHttpListener | undefined;
afterEach(async () => {
  await listener?.close();
  listener = undefined;
});

async function start(): Promise<McpHttpListener> {
  listener = await listenMcpHttp({
    port: 0,
    token: TOKEN,
    open: () => {
      const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: [{ name: 'noop', inputSchema: { type: 'object' as const } }],
      }));
      return server;
    },
  });
  return listener;
}

it('knows a loopback Origin from any other', () => {
  expect(loopbackOrigin(undefined)).toBe(true);
  for (const origin of ['http://127.0.0.1:5173', 'http://localhost', 'https://[::1]:8443'])
    expect(loopbackOrigin(origin), origin).toBe(true);
  for (const origin of [
    'http://evil.example',
    'http://127.0.0.1.evil.example',
    'null',
    'file://',
    'chrome-extension://abc',
  ])
    expect(loopbackOrigin(origin), origin).toBe(false);
});

it('refuses another path, a missing or unknown session; serves a client session until it ends', async () => {
  const { url, port } = await start();
  expect(url).toBe(`http://127.0.0.1:${port}/mcp`);
  const auth = { authorization: `Bearer ${TOKEN}` };
  expect((await fetch(`http://127.0.0.1:${port}/`, { headers: auth })).status).toBe(404);
  expect((await fetch(url, { headers: auth })).status).toBe(400); // GET without a session
  const unknown = await fetch(url, {
    method: 'POST',
    headers: { ...auth, 'mcp-session-id': 'no-such-session', 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  expect(unknown.status).toBe(404);
  const notInitialize = await fetch(url, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  expect(notInitialize.status).toBe(400);
  const garbled = await fetch(url, { method: 'POST', headers: auth, body: '{' });
  expect(garbled.status).toBe(400);

  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: auth },
  });
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(transport);
  expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['noop']);
  const sessionId = transport.sessionId;
  expect(sessionId).toEqual(expect.any(String));
  // Ending the session (DELETE) forgets it: its id is then unknown.
  await transport.terminateSession();
  await client.close();
  const ended = await fetch(url, {
    method: 'POST',
    headers: { ...auth, 'mcp-session-id': sessionId as string, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  expect(ended.status).toBe(404);

  // Once refusing (the owner stopping), even a good request gets 503.
  listener?.refuse();
  expect((await fetch(url, { method: 'POST', headers: auth, body: '{}' })).status).toBe(503);
});
