/**
 * `pincer daemon --mcp-http` as a real child process (the built CLI): MCP over Streamable HTTP
 * on 127.0.0.1, served over the daemon's own agent and driven by the MCP SDK's own client, with
 * the bearer token the daemon keeps for CKP. Without the token, or from a browser page that is
 * not loopback, nothing is served and nothing runs. An approval is answered by a surface attached
 * to the daemon's gateway; with none attached the rule's answer applies at once.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { connectGateway, readGatewayFile } from '../../../src/main/core/gateway/index.js';
import type { AssistantEvent } from '../../../src/shared/ipc.js';
import { approvalTimeout } from '../../support/channel-agent.js';
import { runBuiltCli } from '../../support/cli-run.js';
import { DaemonProcesses, listenerUrl, requireBuiltCli } from '../../support/daemon-process.js';

const daemons = new DaemonProcesses();
beforeAll(requireBuiltCli);
afterEach(() => daemons.cleanUp());

interface AuditRow {
  runId: string;
  tool: string | null;
  event: string;
  approvalBy: string | null;
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  },
});
const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

it('serves MCP over its own agent: the token and a loopback Origin are required, calls are audited runs, attached surfaces answer approvals', async () => {
  const { dataDir, env, args } = await daemons.setUp('pincer-daemon-mcp');
  const { child, exited, output } = daemons.spawn(
    [...args, '--drain', '2', '--mcp-http', '0'],
    env,
  );

  // The URL the running daemon reports, and the token it keeps for CKP and MCP alike.
  const url = await listenerUrl(env, child.pid, 'mcp');
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  const token = (await readFile(path.join(dataDir, 'daemon', 'ckp-token'), 'utf8')).trim();
  const status = await runBuiltCli(['daemon', 'status'], { env });
  expect(status.stdout).toContain(`MCP (http): ${url}`);
  expect(status.stdout).not.toContain(token);

  // No token, another token, a page elsewhere, an oversized body: refused before MCP sees them.
  const post = (headers: Record<string, string>, body = INITIALIZE) =>
    fetch(url, { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body });
  expect((await post({})).status).toBe(401);
  expect((await post({ authorization: 'Bearer not-the-token' })).status).toBe(401);
  expect(
    (await post({ authorization: `Bearer ${token}`, origin: 'http://evil.example' })).status,
  ).toBe(403);
  expect((await post({ authorization: `Bearer ${token}`, origin: 'null' })).status).toBe(403);
  expect(
    (await post({ authorization: `Bearer ${token}` }, 'x'.repeat(4 * 1024 * 1024 + 1))).status,
  ).toBe(413);
  const audit = async () =>
    JSON.parse((await runBuiltCli(['audit', '--json'], { env })).stdout) as AuditRow[];
  expect(await audit()).toEqual([]);

  const client = new Client({ name: 'sdk-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: {
        headers: { authorization: `Bearer ${token}`, origin: 'http://localhost:5173' },
      },
    }),
  );
  try {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['fs__list', 'fs__read', 'fs__write']),
    );

    // A read-only tool: one run of the daemon's agent, in its audit.
    const listed = await client.callTool({ name: 'fs__list', arguments: { path: '.' } });
    expect(listed.isError).toBeFalsy();
    const listRows = (await audit()).filter((row) => row.tool === 'fs/list');
    expect(listRows.length).toBeGreaterThan(0);
    expect(new Set(listRows.map((row) => row.runId)).size).toBe(1);

    // A write asks for approval: nobody is attached, so the rule's answer (deny) comes at once.
    const refused = await client.callTool({
      name: 'fs__write',
      arguments: { path: 'refused.md', content: 'x' },
    });
    expect(refused).toMatchObject({ isError: true, structuredContent: { code: -32013 } });

    // A surface attached through the daemon's gateway sees the approval and answers it.
    const entry = readGatewayFile(dataDir);
    if (!entry) throw new Error('the daemon wrote no gateway.json');
    const link = await connectGateway(`ws://127.0.0.1:${entry.port}/ipc`, entry.token);
    try {
      const asked = new Promise<string>((resolve) => {
        link.subscribe((event: AssistantEvent) => {
          if (event.topic === 'approval.requested') resolve(event.approval.id);
        });
      });
      const written = client.callTool({
        name: 'fs__write',
        arguments: { path: 'approved.md', content: 'from mcp' },
      });
      const approvalId = await asked;
      expect(await link.invoke('approvals.resolve', { approvalId, verdict: 'approve' })).toEqual({
        result: 'resolved',
      });
      expect((await written).isError).toBeFalsy();
      const read = await client.callTool({ name: 'fs__read', arguments: { path: 'approved.md' } });
      expect(JSON.stringify(read.content)).toContain('from mcp');
      const approvals = (await audit()).filter((row) => row.approvalBy);
      expect(approvals.map((row) => row.approvalBy)).toEqual(
        expect.arrayContaining([
          'mcp: no surface attached to the daemon',
          expect.stringMatching(/^ui/),
        ]),
      );
    } finally {
      link.close();
    }
  } finally {
    await client.close();
  }

  child.kill('SIGTERM');
  expect(await exited).toBe(0);
  await expect(post({ authorization: `Bearer ${token}` })).rejects.toThrow();
  const log = await readFile(path.join(dataDir, 'logs', 'daemon.log'), 'utf8');
  expect(log).toMatch(/MCP \(http\) on http:\/\/127\.0\.0\.1:\d+\/mcp/);
  expect(log).not.toContain(token);
  expect(output()).not.toContain(token);
}, 180_000);

it('with nobody attached, a remote client gets no write or command even where the rule allows at timeout', async () => {
  const { dataDir, env, args } = await daemons.setUp('pincer-daemon-mcp-nobody', {
    edit: approvalTimeout(1, 'allow', ['approve-filesystem-writes', 'approve-shell']),
  });
  const { child, exited } = daemons.spawn([...args, '--drain', '2', '--mcp-http', '0'], env);
  const url = await listenerUrl(env, child.pid, 'mcp');
  const token = (await readFile(path.join(dataDir, 'daemon', 'ckp-token'), 'utf8')).trim();
  const client = new Client({ name: 'remote', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  try {
    const write = await client.callTool({
      name: 'fs__write',
      arguments: { path: 'remote.md', content: 'x' },
    });
    expect(write).toMatchObject({ isError: true, structuredContent: { code: -32013 } });
    const exec = await client.callTool({
      name: 'sys__exec',
      arguments: { command: 'touch', args: ['remote-exec.md'] },
    });
    expect(exec.isError).toBe(true);
    expect((exec.structuredContent as { code?: number } | undefined)?.code).toBeOneOf([
      -32011, -32012, -32013,
    ]);
  } finally {
    await client.close();
  }
  const found = JSON.stringify(await readdirDeep(dataDir));
  expect(found).not.toContain('remote.md');
  expect(found).not.toContain('remote-exec.md');
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
}, 120_000);

/** Every file name under `dir` (none when it does not exist). */
async function readdirDeep(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const { readdir } = await import('node:fs/promises');
  return (await readdir(dir, { recursive: true })).map(String);
}
