/**
 * The MCP client as a tool source of the agent root: a stdio server (started through the
 * sandbox) bound by the manifest's mcp_source, the same server and an HTTP one in the user's
 * list. Calls go through the runtime like a built-in's: validation against the schema the
 * server listed, policy, the manifest's timeout_ms, a crash and its restart, list_changed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agent, openAgent } from '../../../src/main/core/agent/index.js';
import { RpcError, ToolCalls } from '../../../src/main/core/ckp-server/index.js';
import { addMcpServer } from '../../../src/main/core/mcp/config.js';
import { viaProvider } from '../../../src/main/core/models/access.js';
import { startMcpHttpServer } from '../../fixtures/mcp/http-server.js';
import { repoRoot } from '../../support/cli-run.js';
import { type ClawParts, mcpTool, STUB_PROVIDER, writeClaw } from '../../support/manifest.js';
import { ScriptedProvider } from '../../support/scripted-provider.js';
import { vaultSecrets } from '../../support/secrets.js';

const server = path.join(repoRoot, 'test/fixtures/mcp/stdio-server.mjs');
let dataDir = '';
let agent: Agent;
let web: Awaited<ReturnType<typeof startMcpHttpServer>>;
const calls = new ToolCalls({ channel: 'mcp', type: 'mcp' });

function manifest(): ClawParts {
  return {
    name: 'mcp-user',
    identity: { name: 'mcp-user', personality: 'Test.', autonomy: 'autonomous' },
    providers: [{ ...STUB_PROVIDER, model: 'x' }],
    tools: [
      mcpTool('echo', server, 'echo'),
      mcpTool('slow-op', server, 'slow', { timeout_ms: 300 }),
      mcpTool('nuke', server, 'crash', {
        description: 'Destroys things',
        input_schema: { type: 'object' },
        annotations: { destructiveHint: true },
      }),
    ],
    sandbox: { name: 'box', level: 'process' },
    policies: [
      {
        name: 'p',
        rules: [
          {
            id: 'no-destruction',
            action: 'deny',
            scope: 'tool',
            match: { annotations: { destructiveHint: true } },
          },
          { id: 'rest', action: 'allow', scope: 'all' },
        ],
      },
    ],
  };
}

async function call(name: string, input: Record<string, unknown>, id: string) {
  try {
    return { result: await calls.call(agent, name, input, id) };
  } catch (error) {
    if (error instanceof RpcError) return { error: { code: error.code, message: error.message } };
    throw error;
  }
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 25));
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-mcp-'));
  web = await startMcpHttpServer();
  await addMcpServer(dataDir, 'local', { command: process.execPath, args: [server] });
  await addMcpServer(dataDir, 'web', { url: web.url });
  const file = await writeClaw(dataDir, manifest());
  agent = await openAgent({
    dataDir,
    appDir: repoRoot,
    manifest: file,
    model: {
      kind: 'fixed',
      access: viaProvider(new ScriptedProvider([]), 'scripted'),
      label: 'scripted',
    },
    tools: '**',
    secrets: vaultSecrets(dataDir),
  });
});

afterAll(async () => {
  await agent?.close();
  await web?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('MCP tools in the registry', () => {
  it('fills description and schema from tools/list where the manifest leaves them out', () => {
    const echo = agent.registry.get('echo');
    expect(echo).toMatchObject({ description: 'Echoes its text back', source: 'mcp' });
    expect(echo?.inputSchema).toMatchObject({ properties: { text: { type: 'string' } } });
    expect(agent.registry.get('nuke')?.description).toBe('Destroys things');
    expect(agent.registry.get('mcp/web/echo')).toBeDefined();
    // A server's readOnlyHint is not trusted.
    expect(agent.registry.get('mcp/local/echo')?.annotations.readOnlyHint).toBe(false);
  });

  it('calls a stdio tool and an HTTP tool through the runtime', async () => {
    expect((await call('echo', { text: 'hi' }, 'e1')).result).toEqual({
      content: [{ type: 'text', text: 'echo: hi' }],
      isError: false,
    });
    expect((await call('mcp/web/echo', { text: 'over http' }, 'e2')).result?.content).toEqual([
      { type: 'text', text: 'echo: over http' },
    ]);
  });

  it('validates arguments against the listed schema and applies the policy', async () => {
    expect((await call('echo', { text: 5 }, 'e3')).error?.code).toBe(-32602);
    expect((await call('nuke', {}, 'e4')).error?.code).toBe(-32011);
  });

  it('a tool running past its declared timeout_ms is stopped: -32014', async () => {
    expect((await call('slow-op', { ms: 5000 }, 's1')).error?.code).toBe(-32014);
  });

  it('a server that crashes fails its call clearly and is restarted with backoff', async () => {
    const local = () => agent.mcp.status().find((s) => s.name === 'local');
    const crashed = await call('mcp/local/crash', {}, 'c1');
    expect(crashed.result?.isError).toBe(true);
    expect(crashed.result?.content[0]?.text).toMatch(/MCP server local/);
    await until(() => local()?.state === 'ready' && (local()?.starts ?? 0) >= 2);
    expect((await call('mcp/local/echo', { text: 'back' }, 'c2')).result?.content).toEqual([
      { type: 'text', text: 'echo: back' },
    ]);
  });

  it('notifications/tools/list_changed refreshes the registry', async () => {
    expect(agent.registry.get('mcp/local/extra')).toBeUndefined();
    await call('mcp/local/grow', {}, 'g1');
    await until(() => agent.registry.get('mcp/local/extra') !== undefined);
    expect((await call('mcp/local/extra', {}, 'g2')).result?.content).toEqual([
      { type: 'text', text: 'extra ran' },
    ]);
  });
  it('a server stopped while the agent runs takes its tools away; started again, brings them back', async () => {
    expect(agent.registry.get('mcp/web/echo')).toBeDefined();
    await agent.mcp.stopServer('web');
    expect(agent.registry.get('mcp/web/echo')).toBeUndefined();
    expect(agent.mcp.status().map((s) => s.name)).not.toContain('web');
    await agent.mcp.startServer('web', { url: web.url, headers: {} });
    expect(agent.registry.get('mcp/web/echo')).toBeDefined();
    expect((await call('mcp/web/echo', { text: 'again' }, 'w2')).result?.content).toEqual([
      { type: 'text', text: 'echo: again' },
    ]);
  });
});
