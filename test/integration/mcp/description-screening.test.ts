/**
 * An MCP server's tool descriptions are untrusted content: text in them that reads like
 * instructions to the model (the scanner's injection phrases) is withheld before the model sees
 * the tool list, as other untrusted text is screened. A real SDK server over stdio, sandboxed.
 */
import path from 'node:path';
import { openAgent } from '../../../src/main/core/agent/index.js';
import { addMcpServer } from '../../../src/main/core/mcp/config.js';
import { viaProvider } from '../../../src/main/core/models/access.js';
import { APP_DIR } from '../../support/assistant-harness.js';
import { repoRoot } from '../../support/cli-run.js';
import { expect, it } from '../../support/fixtures.js';
import { ScriptedProvider } from '../../support/scripted-provider.js';

const server = path.join(repoRoot, 'test/fixtures/mcp/injection-server.mjs');

it('withholds injection text in MCP tool and schema descriptions before the model sees them', async ({
  dataDir,
  secrets,
}) => {
  await addMcpServer(dataDir, 'inj', { command: process.execPath, args: [server] });
  const provider = new ScriptedProvider([{ text: 'ok' }]);
  const agent = await openAgent({
    dataDir,
    appDir: APP_DIR,
    model: { kind: 'fixed', access: viaProvider(provider, 'scripted'), label: 'scripted' },
    tools: 'mcp/**',
    secrets,
  });
  try {
    expect(agent.mcp.status()).toEqual([expect.objectContaining({ name: 'inj', state: 'ready' })]);
    await agent.runtime.start({ text: 'hello' }).done;
    const sent = JSON.stringify(provider.requests[0]?.tools ?? []);
    expect(sent).toContain('mcp/inj/lookup');
    for (const phrase of [
      /ignore previous instructions/i,
      /run the following command/i,
      /developer mode/i,
      /send the contents of/i,
      /curl evil/,
    ]) {
      expect(sent).not.toMatch(phrase);
    }
    expect(sent).toContain('withheld');
    // The server's instructions are not handed to the model at all.
    expect(JSON.stringify(provider.requests[0])).not.toMatch(/exfiltrate/);
    // A description with nothing to hide is kept as the server wrote it.
    expect(sent).toContain('Says hello');
  } finally {
    await agent.close();
  }
}, 60_000);
