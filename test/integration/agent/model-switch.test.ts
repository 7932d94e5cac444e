/**
 * A running assistant changes its model without a restart: the tiny local GGUF, then an
 * OpenAI-compatible server on 127.0.0.1, then the local model again; each next run uses the
 * model chosen last.
 */
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { openAgent } from '../../../src/main/core/agent/index.js';
import { assistantOver } from '../../../src/main/core/assistant/index.js';
import { writeTinyGguf } from '../../fixtures/tiny-gguf.js';
import { startVendorServer, type VendorServer } from '../../fixtures/vendor-server.js';
import { openaiFrames } from '../../fixtures/vendor-streams.js';
import { APP_DIR } from '../../support/assistant-harness.js';
import { expect, it } from '../../support/fixtures.js';

let server: VendorServer;
beforeAll(async () => {
  server = await startVendorServer();
});
afterAll(() => server.close());

it('local -> OpenAI-compatible server -> local, without a restart; the next run uses each', async ({
  dataDir,
  secrets,
}) => {
  const modelPath = path.join(dataDir, 'tiny.gguf');
  await writeTinyGguf(modelPath);
  const agent = await openAgent({
    dataDir,
    appDir: APP_DIR,
    model: { kind: 'local', modelPath },
    // No tools: the random tiny model answers in text, so no run waits on a person.
    tools: '',
    local: { threads: 1, contextSize: 512 },
    generation: { maxTokens: 8, temperature: 0 },
    secrets,
  });
  const assistant = await assistantOver(agent);
  const turn = async (text: string) => {
    const { runId } = assistant.send({ text });
    await assistant.finished(runId);
    return assistant.run(runId).run;
  };
  try {
    expect(agent.models.kind).toBe('local');
    // The local window is the engine's, known once it loaded (here the 512 asked for).
    expect(agent.models.contextWindow).toBeNull();
    expect(await turn('hello')).toMatchObject({ outcome: 'completed' });
    expect(server.requests).toHaveLength(0);
    expect(agent.models.contextWindow).toBe(512);
    expect((await assistant.models()).contextWindow).toBe(512);

    await agent.selectModel({
      kind: 'server',
      protocol: 'openai-compatible',
      endpoint: server.url,
      model: 'm',
    });
    expect(agent.models.kind).toBe('remote');
    expect(agent.models.contextWindow).toBeNull(); // "m": no catalog entry, no guess
    server.reply({ kind: 'sse', frames: openaiFrames({ text: ['from the server'] }) });
    expect(await turn('and now?')).toMatchObject({ outcome: 'completed' });
    expect(server.requests).toHaveLength(1);
    expect(JSON.stringify(server.requests[0]?.body)).toContain('and now?');

    // A model the catalog knows under this protocol: its window comes from there.
    await agent.selectModel({
      kind: 'server',
      protocol: 'openai-compatible',
      endpoint: server.url,
      model: 'gpt-4o-mini',
    });
    expect(agent.models.contextWindow).toBe(128_000);

    await agent.selectModel({ kind: 'local', modelPath });
    expect(agent.models.kind).toBe('local');
    expect(agent.models.contextWindow).toBeNull();
    expect(await turn('back home')).toMatchObject({ outcome: 'completed' });
    expect(server.requests).toHaveLength(1);
  } finally {
    await assistant.close();
  }
}, 180_000);
