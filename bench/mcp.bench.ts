/**
 * Per-call cost of an MCP tool against a built-in, both called the way a protocol client calls
 * them (one runtime run each: validation, policy, audit, screening, the run store): the built-in
 * fs/read (a hop to a sandbox worker) against word_count of the example MCP server (started
 * through the sandbox, one JSON-RPC round trip over its stdio).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { openAgent } from '../src/main/core/agent/index.js';
import { ToolCalls } from '../src/main/core/ckp-server/index.js';
import { viaProvider } from '../src/main/core/models/access.js';
import { createSecretStore } from '../src/main/core/secrets/index.js';
import { ScriptedProvider } from '../test/support/scripted-provider.js';
import { measure, report } from './lib.js';

const root = path.resolve(import.meta.dirname, '..');

export async function run(): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-bench-mcp-'));
  const manifest = path.join(dataDir, 'claw.yaml');
  const server = path.join(root, 'examples/mcp-server/server.mjs');
  await writeFile(
    manifest,
    `claw: "0.2.0"
kind: Claw
metadata: { name: "bench" }
spec:
  identity: { inline: { name: "bench", personality: "Bench.", autonomy: "autonomous" } }
  providers:
    - inline: { protocol: "openai-compatible", endpoint: "http://127.0.0.1:9/v1", model: "x", auth: { type: "none" } }
  tools:
    - inline:
        name: "word-count"
        mcp_source: { uri: "stdio://${process.execPath} ${server}", tool_name: "word_count" }
  sandbox: { inline: { name: "box", level: "process" } }
  policies:
    - inline: { name: "p", rules: [{ id: "all", action: "allow", scope: "all" }] }
`,
  );
  const agent = await openAgent({
    dataDir,
    appDir: root,
    manifest,
    model: { kind: 'fixed', access: viaProvider(new ScriptedProvider([]), 'x'), label: 'x' },
    tools: '**',
    secrets: createSecretStore({ dataDir, env: { PINCER_KEYCHAIN: 'off' } }),
  });
  await writeFile(path.join(agent.governance.workspace, 'note.txt'), 'three small words');
  const calls = new ToolCalls({ channel: 'mcp', type: 'mcp' });
  let n = 0;
  try {
    const results = await measure(
      [
        {
          name: 'built-in fs/read (sandbox worker)',
          fn: () => calls.call(agent, 'fs/read', { path: 'note.txt' }, `b${++n}`),
        },
        {
          name: 'MCP word_count (stdio server)',
          fn: () => calls.call(agent, 'word-count', { text: 'three small words' }, `m${++n}`),
        },
      ],
      { samples: 9, iterations: 20, warmup: 2 },
    );
    report('Tool call through the runtime: built-in vs MCP', results);
    const [builtin, mcp] = results;
    if (builtin && mcp)
      console.log(
        `  MCP overhead per call: ${((mcp.medianNs - builtin.medianNs) / 1e6).toFixed(2)} ms`,
      );
  } finally {
    await agent.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
