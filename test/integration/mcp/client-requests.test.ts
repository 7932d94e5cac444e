/**
 * What an MCP server asks of Pincer from inside a tool call, over real stdio: a completion
 * answered by the manifest's provider (a vendor stub on 127.0.0.1) under that provider's
 * declared limits, and the workspace as its root. An agent opened with no surface that can show
 * a form (this one: no askForInput) does not offer elicitation, so the server does not ask; a
 * client with no model does not offer sampling at all. Answering forms: elicitation.test.ts.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agent, openAgent } from '../../../src/main/core/agent/index.js';
import { RpcError, ToolCalls } from '../../../src/main/core/ckp-server/index.js';
import { SAMPLING_LIMITS } from '../../../src/main/core/mcp/client-requests.js';
import { McpConnection } from '../../../src/main/core/mcp/connection.js';
import { startVendorServer, type VendorServer } from '../../fixtures/vendor-server.js';
import { openaiFrames } from '../../fixtures/vendor-streams.js';
import { repoRoot } from '../../support/cli-run.js';
import { type ClawParts, mcpTool, writeClaw } from '../../support/manifest.js';
import { vaultSecrets } from '../../support/secrets.js';

const server = path.join(repoRoot, 'test/fixtures/mcp/client-requests-server.mjs');
let dataDir = '';
let agent: Agent;
let vendor: VendorServer;
const calls = new ToolCalls({ channel: 'mcp', type: 'mcp' });

function manifest(endpoint: string): ClawParts {
  return {
    name: 'mcp-asker',
    identity: { name: 'mcp-asker', personality: 'Test.', autonomy: 'autonomous' },
    providers: [
      {
        name: 'metered',
        protocol: 'openai-compatible',
        endpoint,
        model: 'm',
        auth: { type: 'none' },
        limits: { tokens_per_request: 1500 },
      },
    ],
    tools: ['ask', 'ask-many', 'roots', 'form', 'caps'].map((name) => mcpTool(name, server, name)),
    sandbox: { name: 'box', level: 'process' },
    policies: [{ name: 'p', rules: [{ id: 'all', action: 'allow', scope: 'all' }] }],
  };
}

async function text(name: string, input: Record<string, unknown>, id: string): Promise<string> {
  try {
    const result = await calls.call(agent, name, input, id);
    return result.content.map((block) => block.text).join('\n');
  } catch (error) {
    if (error instanceof RpcError) return `rpc ${error.code}: ${error.message}`;
    throw error;
  }
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-mcp-ask-'));
  vendor = await startVendorServer();
  const file = await writeClaw(dataDir, manifest(vendor.url));
  agent = await openAgent({
    dataDir,
    appDir: repoRoot,
    manifest: file,
    model: { kind: 'provider', name: 'metered' },
    tools: '**',
    secrets: vaultSecrets(dataDir),
  });
});

afterAll(async () => {
  await agent?.close();
  await vendor?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('MCP sampling', () => {
  it('answers sampling/createMessage with the bound provider, maxTokens capped', async () => {
    vendor.reply({ kind: 'sse', frames: openaiFrames({ text: ['forty', '-two'] }) });
    const said = await text('ask', { prompt: 'What is six times seven?', maxTokens: 1e6 }, 'a1');
    expect(said).toBe('model metered/m said: forty-two');
    const body = vendor.requests.at(-1)?.body as { max_tokens: number; messages: unknown[] };
    expect(body.max_tokens).toBe(SAMPLING_LIMITS.maxTokens);
    expect(body.messages).toEqual([
      { role: 'system', content: 'Answer briefly.' },
      { role: 'user', content: 'What is six times seven?' },
    ]);
  });

  it('refuses with the quota error (-32021) when over the provider limits, sending nothing', async () => {
    const before = vendor.requests.length;
    // 1024 output tokens plus ~1000 of prompt is over tokens_per_request 1500.
    const said = await text('ask', { prompt: 'x'.repeat(4000), maxTokens: 1024 }, 'a2');
    expect(said).toMatch(/-32021/);
    expect(said).toMatch(/tokens_per_request limit 1500/);
    expect(vendor.requests.length).toBe(before);
  });

  it("a completion's tokens are the asking run's: in its usage, against its budget", async () => {
    vendor.reply({
      kind: 'sse',
      frames: openaiFrames({ text: ['seven'], usage: { input: 321, output: 7 } }),
    });
    expect(await text('ask', { prompt: 'How many days?', maxTokens: 10 }, 'spent-1')).toBe(
      'model metered/m said: seven',
    );
    const [run] = agent.store.listRuns({ limit: 1 });
    // The run made no model call of its own: all it used is the server's sampling.
    expect(run?.usage).toEqual({ inputTokens: 321, outputTokens: 7 });
  });

  it(`a call that asks for 110 completions is refused past ${SAMPLING_LIMITS.perCall}`, async () => {
    const before = vendor.requests.length;
    for (let i = 0; i < 110; i++)
      vendor.reply({ kind: 'sse', frames: openaiFrames({ text: [`answer ${i}`] }) });
    const said = await text('ask-many', { times: 110 }, 'many-1');
    expect(said).toBe(
      `answered ${SAMPLING_LIMITS.perCall}, then refused: MCP error -32600: sampling allows at most ${SAMPLING_LIMITS.perCall} completions per tool call`,
    );
    expect(vendor.requests.length - before).toBe(SAMPLING_LIMITS.perCall);
  }, 120_000);

  it('refuses a prompt larger than the sampling bound before any model call', async () => {
    const before = vendor.requests.length;
    const said = await text(
      'ask',
      { prompt: 'y'.repeat(SAMPLING_LIMITS.chars + 1), maxTokens: 10 },
      'a3',
    );
    expect(said).toMatch(/at most \d+ characters/);
    expect(vendor.requests.length).toBe(before);
  });
});

describe('MCP roots and elicitation', () => {
  it('declares sampling and roots when a model is available, not elicitation with nobody to ask', async () => {
    const caps = JSON.parse(await text('caps', {}, 'c1')) as Record<string, unknown>;
    expect(Object.keys(caps).sort()).toEqual(['roots', 'sampling']);
  });

  it('answers roots/list with the workspace as a file:// root', async () => {
    const roots = JSON.parse(await text('roots', {}, 'r1')) as { uri: string }[];
    expect(roots).toEqual([
      { uri: pathToFileURL(agent.governance.workspace).href, name: 'workspace' },
    ]);
  });

  it('a form is never asked for where nobody could fill it in (not declared)', async () => {
    expect(await text('form', {}, 'f1')).toMatch(/does not support form elicitation/);
    expect(agent.governance.inputs.pending()).toEqual([]);
  });

  it('offers no sampling when no model is available', async () => {
    const connection = new McpConnection({
      label: 'plain',
      target: {
        kind: 'stdio',
        argv: [process.execPath, server],
        env: {},
        network: false,
      },
      spawn: (spec) => {
        const child = spawn(spec.argv[0] as string, spec.argv.slice(1), {
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        return { child, stop: async () => void child.kill() };
      },
      requests: { sampler: () => undefined },
    });
    try {
      await connection.connect();
      const out = await connection.call('caps', {}, new AbortController().signal);
      expect(JSON.parse(out.content as string)).toEqual({});
      const asked = await connection.call(
        'ask',
        { prompt: 'hi', maxTokens: 5 },
        new AbortController().signal,
      );
      expect(asked.isError).toBe(true);
      // The server's request finds no handler: the capability was never offered.
      expect(asked.content).toMatch(/Method not found/);
    } finally {
      await connection.close();
    }
  });
});
