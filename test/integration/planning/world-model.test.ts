/**
 * CKP 0.3.0 WorldModels doing their work: before a call with side effects, the manifest's world
 * model (here a provider backend: a real OpenAI-compatible server on 127.0.0.1 asked for a JSON
 * prediction) predicts what the call will change; the prediction reaches the approval, the run's
 * events and telemetry, and `planning.fallback: conservative` turns a predicted high risk, or no
 * prediction at all, into an approval where the rule alone would allow.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type Agent, openAgent } from '../../../src/main/core/agent/index.js';
import { viaProvider } from '../../../src/main/core/models/access.js';
import type { RunEvent } from '../../../src/main/core/runtime/index.js';
import type { ToolResultBlock } from '../../../src/shared/messages.js';
import { startVendorServer, type VendorServer } from '../../fixtures/vendor-server.js';
import { openaiFrames } from '../../fixtures/vendor-streams.js';
import { APP_DIR } from '../../support/assistant-harness.js';
import { OPEN_POLICY, type WorldModelInline, writeClaw } from '../../support/manifest.js';
import { ScriptedProvider } from '../../support/scripted-provider.js';

let dataDir = '';
let server: VendorServer;
let agent: Agent | undefined;
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-world-model-'));
  server = await startVendorServer();
});
afterEach(async () => {
  await agent?.close();
  agent = undefined;
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
});

type Backend = WorldModelInline['backend'];
type Fallback = NonNullable<NonNullable<WorldModelInline['planning']>['fallback']>;

function manifest(backend: Backend, fallback: Fallback) {
  return writeClaw(dataDir, {
    claw: '0.3.0',
    name: 'planner',
    identity: { name: 'planner', personality: 'A test agent.', autonomy: 'autonomous' },
    providers: [
      {
        name: 'forecaster',
        protocol: 'openai-compatible',
        endpoint: server.url,
        model: 'm',
        auth: { type: 'none' },
      },
    ],
    policies: [OPEN_POLICY],
    world_models: [
      {
        name: 'environment-model',
        paradigm: 'hybrid',
        backend,
        predicts: { state: true, risk: true, cost: true },
        planning: { fallback },
      },
    ],
    telemetry: {
      exporters: [{ type: 'file', path: path.join(dataDir, 'spans.jsonl') }],
      events: { world_model_ops: true },
    },
  });
}

const lastResult = (messages: { content: { type: string }[] }[]) =>
  messages.at(-1)?.content.find((b) => b.type === 'tool_result') as ToolResultBlock | undefined;

/** An agent whose model writes one file, then says what happened. */
async function open(backend: Backend, fallback: Fallback): Promise<Agent> {
  const model = new ScriptedProvider((request) => {
    const result = lastResult(request.messages);
    if (!result)
      return { toolCalls: [{ name: 'fs/write', input: { path: 'plan.md', content: 'step 1' } }] };
    return { text: result.isError ? 'Not written.' : 'Written.' };
  });
  agent = await openAgent({
    dataDir,
    appDir: APP_DIR,
    manifest: await manifest(backend, fallback),
    model: { kind: 'fixed', access: viaProvider(model, 'scripted'), label: 'scripted' },
    tools: 'fs/*',
    env: { PINCER_KEYCHAIN: 'off' },
  });
  return agent;
}

const predicting = (json: object) =>
  server.reply({ kind: 'sse', frames: openaiFrames({ text: [JSON.stringify(json)] }) });

async function run(opened: Agent, text: string) {
  const handle = opened.runtime.start({ text });
  const result = await handle.done;
  const events: readonly RunEvent[] = handle.events.events;
  return { events, result };
}

const written = async () =>
  stat(path.join(dataDir, 'workspace', 'planner', 'plan.md')).then(
    () => true,
    () => false,
  );

it('a predicted high risk turns an allowed write into an approval that shows the prediction', async () => {
  const opened = await open({ type: 'provider', ref: 'forecaster' }, 'conservative');
  predicting({ state: 'plan.md is overwritten', risk: 'high', cost: 'none' });
  const asked: unknown[] = [];
  opened.governance.broker.onRequest((pending) => {
    asked.push(pending);
    opened.governance.broker.resolve(pending.id, 'deny', 'test');
  });
  const { events } = await run(opened, 'write the plan');
  expect(asked).toEqual([
    expect.objectContaining({
      rule: 'world-model/environment-model',
      reason: expect.stringContaining('predicts high risk: plan.md is overwritten'),
      prediction: {
        worldModel: 'environment-model',
        summary: 'plan.md is overwritten',
        risk: 'high',
        cost: 'none',
      },
    }),
  ]);
  expect(events.find((e) => e.type === 'world_model.predicted')).toMatchObject({
    world_model: 'environment-model',
    risk: 'high',
    summary: 'plan.md is overwritten',
  });
  expect(await written()).toBe(false);
  // The provider was asked once, for a JSON prediction of this call and nothing else.
  expect(server.requests).toHaveLength(1);
  const sent = JSON.stringify(server.requests[0]?.body);
  expect(sent).toContain('fs/write');
  expect(sent).toContain('plan.md');
  await opened.close();
  agent = undefined;
  const spans = (await readFile(path.join(dataDir, 'spans.jsonl'), 'utf8')).trim().split('\n');
  const predicted = spans
    .map((line) => JSON.parse(line) as { name: string; attributes: Record<string, unknown> })
    .find((span) => span.name === 'world_model predict');
  expect(predicted?.attributes).toMatchObject({
    'pincer.world_model': 'environment-model',
    'pincer.world_model.risk': 'high',
    'pincer.planning.asked': true,
  });
});

it('a predicted low risk lets the rule decide: the write runs, with its prediction recorded', async () => {
  const opened = await open({ type: 'provider', ref: 'forecaster' }, 'conservative');
  predicting({ state: 'plan.md is created', risk: 'low' });
  opened.governance.broker.onRequest(() => {
    throw new Error('no approval was expected');
  });
  const { events, result } = await run(opened, 'write the plan');
  expect(result.outcome).toBe('completed');
  expect(await written()).toBe(true);
  expect(events.find((e) => e.type === 'world_model.predicted')).toMatchObject({ risk: 'low' });
});

it('no prediction (a custom backend) is a reason for a conservative model to ask a person', async () => {
  const opened = await open({ type: 'custom', ref: 'elsewhere' }, 'conservative');
  const asked: string[] = [];
  opened.governance.broker.onRequest((pending) => {
    asked.push(pending.reason);
    opened.governance.broker.resolve(pending.id, 'approve', 'test');
  });
  const { result } = await run(opened, 'write the plan');
  expect(result.outcome).toBe('completed');
  expect(asked).toEqual([expect.stringContaining('could not predict this call')]);
  expect(await written()).toBe(true);
});

it('without a cautious fallback a high risk is shown, never acted on; read-only calls ask nothing', async () => {
  const opened = await open({ type: 'provider', ref: 'forecaster' }, 'retry');
  predicting({ state: 'plan.md is overwritten', risk: 'high' });
  const { events, result } = await run(opened, 'write the plan');
  expect(result.outcome).toBe('completed');
  expect(events.find((e) => e.type === 'world_model.predicted')).toMatchObject({ risk: 'high' });
  const handle = opened.runtime.start({
    text: 'list',
    toolCall: { name: 'fs/list', input: { path: '.' } },
  });
  await handle.done;
  // One prediction for the write; none for the listing.
  expect(server.requests).toHaveLength(1);
});
