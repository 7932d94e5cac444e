/**
 * Telemetry as the manifest declares it: a scripted run with a delegated child, tool calls and
 * approvals becomes OpenTelemetry spans, exported over OTLP/HTTP to a receiver on 127.0.0.1 and
 * to a JSON-lines file; sampling 0 exports nothing; prompts and secret values never leave.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { type Agent, openAgent } from '../../../src/main/core/agent/index.js';
import { viaProvider } from '../../../src/main/core/models/access.js';
import type { ModelRequest } from '../../../src/main/core/models/types.js';
import { openDatabase, profileDatabasePath } from '../../../src/main/core/storage/index.js';
import { InProcessBackend } from '../../../src/main/core/swarm/in-process.js';
import { agentWorker, SwarmCoordinator } from '../../../src/main/core/swarm/index.js';
import type { SpanRecord } from '../../../src/main/core/telemetry/exporters.js';
import { otelTraceId, runSpanId } from '../../../src/main/core/telemetry/ids.js';
import { delegationSpanId, traceparent } from '../../../src/main/core/telemetry/index.js';
import type { ToolResultBlock } from '../../../src/shared/messages.js';
import { APP_DIR } from '../../support/assistant-harness.js';
import { OPEN_POLICY, type TelemetryInline, writeClaw } from '../../support/manifest.js';
import {
  attr,
  isTraces,
  type OtlpSpan,
  otlpSpans,
  type Receiver,
  otlpReceiver as receiver,
} from '../../support/otlp-receiver.js';
import { ScriptedProvider } from '../../support/scripted-provider.js';
import { vaultSecrets } from '../../support/secrets.js';

const PROMPT = 'PROMPT-TEXT-never-exported-4f1c';
const SECRET = 'sk-telemetry-SECRET-9b7e5d3a1c0f2468';

let dataDir = '';
let servers: Receiver[] = [];
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-telemetry-'));
  servers = [];
});
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await rm(dataDir, { recursive: true, force: true });
});

function manifest(telemetry?: TelemetryInline) {
  return writeClaw(
    dataDir,
    {
      name: 'traced',
      identity: { personality: 'A test agent.', autonomy: 'supervised' },
      policies: [OPEN_POLICY],
      telemetry,
    },
    'test-claw.yaml',
  );
}

const SUB = 'You are a sub-agent';
const isChild = (request: ModelRequest) => request.system?.includes(SUB) === true;
const lastResult = (request: ModelRequest) =>
  request.messages.at(-1)?.content.find((b) => b.type === 'tool_result') as
    | ToolResultBlock
    | undefined;

/** The parent delegates; the child writes a note holding a secret value; both ask approval. */
async function delegatingRun(
  telemetry?: TelemetryInline,
): Promise<{ agent: Agent; runId: string }> {
  const provider = new ScriptedProvider((request) => {
    const result = lastResult(request);
    if (isChild(request)) {
      if (!result)
        return { toolCalls: [{ name: 'memory/note', input: { text: `token ${SECRET}` } }] };
      return { text: 'The child finished.', usage: { inputTokens: 7, outputTokens: 3 } };
    }
    if (!result)
      return {
        toolCalls: [
          { name: 'agents/delegate', input: { goal: 'note the token', tools: ['memory/*'] } },
        ],
        usage: { inputTokens: 11, outputTokens: 5 },
      };
    return { text: 'Done.', usage: { inputTokens: 13, outputTokens: 2 } };
  });
  const secrets = vaultSecrets(dataDir, 'test-passphrase');
  await secrets.set('TELEMETRY_TEST_TOKEN', SECRET);
  const agent = await openAgent({
    dataDir,
    appDir: APP_DIR,
    manifest: await manifest(telemetry),
    model: { kind: 'fixed', access: viaProvider(provider, 'scripted'), label: 'scripted' },
    tools: 'memory/*,agents/delegate',
    secrets,
  });
  agent.governance.broker.onRequest((pending) => {
    agent.governance.broker.resolve(pending.id, 'approve', 'test');
  });
  try {
    const handle = agent.runtime.start({ text: `delegate: ${PROMPT}` });
    expect((await handle.done).outcome).toBe('completed');
    return { agent, runId: handle.runId };
  } catch (error) {
    await agent.close();
    throw error;
  }
}

it('a run with a delegated child, tool calls and approvals reaches an OTLP/HTTP receiver as one trace, with no prompt or secret', async () => {
  const otlp = await receiver();
  const broken = await receiver(500);
  servers.push(otlp, broken);
  const file = path.join(dataDir, 'spans.jsonl');
  const { agent, runId } = await delegatingRun({
    exporters: [
      { type: 'otlp', endpoint: otlp.url, batch: { flush_interval_ms: 100 } },
      { type: 'file', path: file },
      { type: 'webhook', endpoint: `${broken.url}/hook` },
    ],
    metrics: { cost_usd: true },
  });
  const traceId = agent.store.getRun(runId as never)?.traceId as string;
  const child = agent.store.childRuns(runId as never)[0];
  expect(child).toBeDefined();
  expect(agent.telemetry?.metrics()).toMatchObject({
    runs: { completed: 2 },
    model_calls: 4,
    tool_calls: { ok: 2 },
  });
  await agent.close();
  // The webhook answering 500 cost its batches, counted, never the run.
  expect(broken.bodies.length).toBeGreaterThan(0);
  expect(agent.telemetry?.metrics().export_failures).toBeGreaterThan(0);

  // Two runs, four model calls, two tool calls, two approvals.
  await vi.waitFor(() => expect(otlpSpans(otlp.bodies)).toHaveLength(10), { timeout: 10_000 });
  for (const body of otlp.bodies)
    expect(body.type).toMatch(/^POST \/v1\/(traces|metrics) application\/json/);
  const spans = otlpSpans(otlp.bodies);
  const raw = otlp.bodies.map((b) => b.text).join('\n');
  expect(raw).not.toContain(PROMPT);
  expect(raw).not.toContain(SECRET);
  expect(raw).not.toContain('note the token');

  // One trace, derived from Pincer's trace id; the same id a NATS traceparent would carry.
  const otelTrace = otelTraceId(traceId);
  expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([otelTrace]));
  expect(traceparent(traceId, runId)).toBe(`00-${otelTrace}-${runSpanId(runId)}-01`);

  const byName = (name: string) => spans.filter((s) => s.name === name);
  const [root] = byName('pincer.run');
  const [delegated] = byName('pincer.run delegated');
  expect(root?.spanId).toBe(runSpanId(runId));
  expect(root?.parentSpanId ?? '').toBe('');
  expect(delegated?.spanId).toBe(runSpanId(child?.id as string));
  expect(delegated?.parentSpanId).toBe(root?.spanId);
  expect(attr(delegated as OtlpSpan, 'pincer.parent_run_id')).toBe(runId);

  const [delegate] = byName('execute_tool agents/delegate');
  const [note] = byName('execute_tool memory/note');
  expect(delegate?.parentSpanId).toBe(root?.spanId);
  expect(note?.parentSpanId).toBe(delegated?.spanId);
  expect(attr(note as OtlpSpan, 'pincer.tool.status')).toBe('ok');
  expect(attr(note as OtlpSpan, 'pincer.policy.decision')).toBeDefined();
  expect(attr(note as OtlpSpan, 'pincer.tool.arguments')).toBeUndefined();

  const approvals = spans.filter((s) => s.name.startsWith('approval '));
  expect(approvals.map((s) => s.parentSpanId).sort()).toEqual(
    [root?.spanId, delegated?.spanId].sort(),
  );
  for (const span of approvals) expect(attr(span, 'pincer.approval.approved')).toBe(true);

  const models = spans.filter((s) => attr(s, 'gen_ai.operation.name') === 'chat');
  expect(models).toHaveLength(4);
  expect(models.filter((s) => s.parentSpanId === root?.spanId)).toHaveLength(2);
  expect(Number(attr(root as OtlpSpan, 'gen_ai.usage.input_tokens'))).toBeGreaterThan(0);
  expect(attr(root as OtlpSpan, 'pincer.run.outcome')).toBe('completed');
  expect(attr(root as OtlpSpan, 'pincer.cost_usd')).toBeDefined();

  // The file exporter wrote the same spans as JSON lines.
  const lines = (await readFile(file, 'utf8')).trim().split('\n');
  const records = lines.map((line) => JSON.parse(line) as SpanRecord);
  expect(records.map((r) => r.span_id).sort()).toEqual(spans.map((s) => s.spanId).sort());
  expect(records.find((r) => r.name === 'pincer.run delegated')?.parent_span_id).toBe(root?.spanId);
  expect(lines.join('\n')).not.toContain(SECRET);
});

it('tool arguments are exported only when the manifest opts in, and then screened; webhook and profile-database exporters', async () => {
  const file = path.join(dataDir, 'spans.jsonl');
  const hook = await receiver();
  servers.push(hook);
  const { agent } = await delegatingRun({
    exporters: [
      { type: 'file', path: file },
      { type: 'webhook', endpoint: `${hook.url}/hook` },
      { type: 'sqlite', path: profileDatabasePath(dataDir) },
    ],
    redaction: { strip_arguments: false },
  });
  await agent.close();
  expect(agent.telemetry?.metrics().export_failures).toBe(0);
  const posted = hook.bodies.flatMap((b) => (JSON.parse(b.text) as { spans: SpanRecord[] }).spans);
  expect(posted).toHaveLength(10);
  expect(hook.bodies[0]?.type).toMatch(/^POST \/hook application\/json/);
  const db = openDatabase(profileDatabasePath(dataDir), { readonly: true, vectors: false });
  try {
    const rows = db.prepare('select name, attributes from telemetry_spans').all() as {
      name: string;
      attributes: string;
    }[];
    expect(rows.map((r) => r.name).sort()).toEqual(posted.map((r) => r.name).sort());
    expect(JSON.stringify(rows)).not.toContain(SECRET);
  } finally {
    db.close();
  }
  const text = await readFile(file, 'utf8');
  const records = text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as SpanRecord);
  const note = records.find((r) => r.name === 'execute_tool memory/note');
  const args = String(note?.attributes['pincer.tool.arguments']);
  expect(args).toContain('token ');
  expect(args).toMatch(/redacted/i);
  expect(text).not.toContain(SECRET);
  expect(text).not.toContain(PROMPT);
});

it('sampling 0 exports no span, and a manifest without telemetry opens none', async () => {
  const otlp = await receiver();
  servers.push(otlp);
  const file = path.join(dataDir, 'spans.jsonl');
  const sampled = await delegatingRun({
    exporters: [
      { type: 'otlp', endpoint: otlp.url },
      { type: 'file', path: file },
    ],
    sampling: { rate: 0 },
  });
  await sampled.agent.close();
  expect(otlp.bodies.filter(isTraces)).toEqual([]);
  // Metrics are not sampled: closing sent them.
  expect(otlp.bodies.map((b) => b.type)).toEqual(['POST /v1/metrics application/json']);
  // The counters still cover unsampled runs.
  expect(sampled.agent.telemetry?.metrics()).toMatchObject({
    runs: { completed: 2 },
    tool_calls: { ok: 2 },
  });
  await expect(readFile(file, 'utf8')).rejects.toThrow(/ENOENT/);

  const plain = await delegatingRun();
  try {
    expect(plain.agent.telemetry).toBeUndefined();
  } finally {
    await plain.agent.close();
  }
});

it('an in-process swarm: each member run span is a child of the delegation span for its task, under the operation span', async () => {
  const file = path.join(dataDir, 'spans.jsonl');
  const provider = new ScriptedProvider(() => ({ text: `answer ${SECRET}` }));
  const agent = await openAgent({
    dataDir,
    appDir: APP_DIR,
    manifest: await manifest({ exporters: [{ type: 'file', path: file }] }),
    model: { kind: 'fixed', access: viaProvider(provider, 'scripted'), label: 'scripted' },
    tools: '',
    secrets: vaultSecrets(dataDir, 'test-passphrase'),
  });
  const backend = new InProcessBackend();
  try {
    for (const id of ['m1', 'm2'])
      await backend.serve({ id, swarm: 'crew', identity: 'w', role: 'worker' }, agentWorker(agent));
    const coordinator = new SwarmCoordinator(
      {
        name: 'crew',
        topology: 'leader-worker',
        workers: 2,
        maxParallel: 2,
        strategy: 'majority-vote',
        timeoutMs: 30_000,
        retries: 0,
        deadLetter: true,
        limits: {},
      },
      backend,
      undefined,
      agent.telemetry,
    );
    const result = await coordinator.run({ goal: PROMPT, traceId: 'trc_inproc' });
    expect(result.outcome).toBe('completed');
  } finally {
    await backend.close();
    await agent.close();
  }
  const text = await readFile(file, 'utf8');
  expect(text).not.toContain(PROMPT);
  expect(text).not.toContain(SECRET);
  const records = text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as SpanRecord);
  expect(new Set(records.map((r) => r.trace_id))).toEqual(new Set([otelTraceId('trc_inproc')]));
  const [operation] = records.filter((r) => r.name === 'swarm.operation crew');
  const delegations = records.filter((r) => r.name === 'swarm.delegate crew');
  expect(operation?.parent_span_id).toBeUndefined();
  expect(delegations).toHaveLength(2);
  for (const d of delegations) {
    expect(d.parent_span_id).toBe(operation?.span_id);
    expect(d.span_id).toBe(delegationSpanId(String(d.attributes['pincer.swarm.task_id'])));
    expect(d.attributes['pincer.swarm.outcome']).toBe('completed');
  }
  const runs = records.filter((r) => r.name === 'pincer.run');
  expect(runs.map((r) => r.parent_span_id).sort()).toEqual(
    delegations.map((d) => d.span_id).sort(),
  );
});
