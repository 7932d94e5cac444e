/**
 * The telemetry counters as OpenTelemetry metrics: a manifest's otlp exporter also receives
 * OTLP/JSON metrics at /v1/metrics, at the suite's receiver on 127.0.0.1: periodically
 * while the agent runs, and once more when it closes, with the counts of the run (runs by
 * outcome, model calls, GenAI token usage and durations, tool calls) and no prompt or secret.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type Agent, openAgent } from '../../../src/main/core/agent/index.js';
import { viaProvider } from '../../../src/main/core/models/access.js';
import { otlpMetricsUrl } from '../../../src/main/core/telemetry/metric-export.js';
import { APP_DIR } from '../../support/assistant-harness.js';
import { OPEN_POLICY, type TelemetryExporter, writeClaw } from '../../support/manifest.js';
import {
  type OtlpAttribute,
  otlpReceiver,
  otlpSpans,
  type ReceivedBody,
  type ReceivedSpan,
  type Receiver,
  resourceAttr,
} from '../../support/otlp-receiver.js';
import { ScriptedProvider } from '../../support/scripted-provider.js';
import { vaultSecrets } from '../../support/secrets.js';

const PROMPT = 'PROMPT-TEXT-never-in-metrics-77aa';
const SECRET = 'sk-metrics-SECRET-0c1d2e3f4a5b6c7d';
const NOTE = 'NOTE-TEXT-never-in-metrics-3b3b';

type Attribute = { key: string; value: { stringValue?: string } };
interface Point {
  attributes?: Attribute[];
  asDouble?: number;
  asInt?: number | string;
  count?: number | string;
  sum?: number;
}
interface OtlpMetric {
  name: string;
  unit?: string;
  sum?: { dataPoints: Point[] };
  histogram?: { dataPoints: Point[] };
}

const metricPosts = (bodies: ReceivedBody[]) =>
  bodies.filter((b) => b.type.startsWith('POST /v1/metrics '));

/** The metrics of one OTLP/JSON export request, by name. */
function metricsOf(post: ReceivedBody | undefined): Map<string, OtlpMetric> {
  if (!post) return new Map();
  const payload = JSON.parse(post.text) as {
    resourceMetrics: { scopeMetrics: { metrics: OtlpMetric[] }[] }[];
  };
  const all = payload.resourceMetrics.flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics));
  return new Map(all.map((m) => [m.name, m]));
}

const labels = (point: Point) =>
  Object.fromEntries((point.attributes ?? []).map((a) => [a.key, a.value.stringValue]));

/** A counter's points as "attr=value,... -> n", sorted; a histogram's as "... -> count/sum". */
function points(metrics: Map<string, OtlpMetric>, name: string): string[] {
  const metric = metrics.get(name);
  const describe = (point: Point) =>
    Object.entries(labels(point))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
  if (metric?.sum)
    return metric.sum.dataPoints
      .map((p) => `${describe(p)} -> ${Number(p.asDouble ?? p.asInt)}`)
      .sort();
  if (metric?.histogram)
    return metric.histogram.dataPoints
      .map((p) => `${describe(p)} -> ${Number(p.count)}/${Number(p.sum)}`)
      .sort();
  return [];
}

let dataDir = '';
let receivers: Receiver[] = [];
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-metrics-'));
  receivers = [];
});
afterEach(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await rm(dataDir, { recursive: true, force: true });
});

/** An agent whose run writes one memory note (a tool call), with the usage the script sets. */
async function agentWith(exporters: TelemetryExporter[]): Promise<Agent> {
  const manifest = await writeClaw(
    dataDir,
    { name: 'metered', policies: [OPEN_POLICY], telemetry: { exporters } },
    'test-claw.yaml',
  );
  const provider = new ScriptedProvider((request) => {
    const answered = request.messages.at(-1)?.content.some((b) => b.type === 'tool_result');
    return answered
      ? { text: 'Noted.', usage: { inputTokens: 13, outputTokens: 2 } }
      : {
          toolCalls: [{ name: 'memory/note', input: { text: NOTE } }],
          usage: { inputTokens: 11, outputTokens: 5 },
        };
  });
  const secrets = vaultSecrets(dataDir, 'test-passphrase');
  await secrets.set('METRICS_TEST_TOKEN', SECRET);
  return openAgent({
    dataDir,
    appDir: APP_DIR,
    manifest,
    model: { kind: 'fixed', access: viaProvider(provider, 'scripted'), label: 'scripted' },
    tools: 'memory/*',
    secrets,
  });
}

async function runOnce(agent: Agent): Promise<void> {
  const handle = agent.runtime.start({ text: `note this: ${PROMPT}` });
  expect((await handle.done).outcome).toBe('completed');
}

/** What one completed run with one memory/note call adds up to, `n` times over. */
function expectRunCounts(metrics: Map<string, OtlpMetric>, n: number): void {
  expect(points(metrics, 'pincer.runs')).toEqual([`pincer.run.outcome=completed -> ${n}`]);
  const chat = 'gen_ai.operation.name=chat,gen_ai.response.model=scripted/scripted';
  expect(points(metrics, 'pincer.model.calls')).toEqual([`${chat} -> ${2 * n}`]);
  expect(points(metrics, 'gen_ai.client.token.usage')).toEqual([
    `${chat},gen_ai.token.type=input -> ${2 * n}/${24 * n}`,
    `${chat},gen_ai.token.type=output -> ${2 * n}/${7 * n}`,
  ]);
  expect(metrics.get('gen_ai.client.token.usage')?.unit).toBe('{token}');
  expect(points(metrics, 'gen_ai.client.operation.duration')).toHaveLength(1);
  expect(points(metrics, 'gen_ai.client.operation.duration')[0]).toMatch(
    new RegExp(`^${chat} -> ${2 * n}/`),
  );
  expect(metrics.get('gen_ai.client.operation.duration')?.unit).toBe('s');
  expect(points(metrics, 'pincer.tool.calls')).toEqual([
    `gen_ai.tool.name=memory/note,pincer.tool.status=ok -> ${n}`,
  ]);
  expect(points(metrics, 'pincer.tool.duration')[0]).toMatch(
    new RegExp(`^gen_ai.tool.name=memory/note,pincer.tool.status=ok -> ${n}/`),
  );
}

it('the periodic reader sends the counts of a run with a tool call while the agent runs', async () => {
  const otlp = await otlpReceiver();
  receivers.push(otlp);
  const agent = await agentWith([
    {
      type: 'otlp',
      endpoint: otlp.url,
      auth: { secret_ref: 'METRICS_TEST_TOKEN' },
      batch: { flush_interval_ms: 150 },
    },
  ]);
  try {
    await runOnce(agent);
    // Cumulative: the latest collection holds the whole run once its events are in.
    await expect
      .poll(() => points(metricsOf(metricPosts(otlp.bodies).at(-1)), 'pincer.runs'), {
        timeout: 10_000,
      })
      .toEqual(['pincer.run.outcome=completed -> 1']);
    expectRunCounts(metricsOf(metricPosts(otlp.bodies).at(-1)), 1);
    // Another run: the next collections count both.
    await runOnce(agent);
    await expect
      .poll(() => points(metricsOf(metricPosts(otlp.bodies).at(-1)), 'pincer.runs'), {
        timeout: 10_000,
      })
      .toEqual(['pincer.run.outcome=completed -> 2']);
    expectRunCounts(metricsOf(metricPosts(otlp.bodies).at(-1)), 2);
    expect(agent.telemetry?.metrics()).toMatchObject({
      runs: { completed: 2 },
      model_calls: 4,
      input_tokens: 48,
      output_tokens: 14,
      tool_calls: { ok: 2 },
    });
  } finally {
    await agent.close();
  }
  const posted = metricPosts(otlp.bodies);
  for (const post of posted) {
    expect(post.type).toBe('POST /v1/metrics application/json');
    expect(post.authorization).toBe(`Bearer ${SECRET}`);
  }
  const raw = otlp.bodies.map((p) => p.text).join('\n');
  expect(raw).not.toContain(PROMPT);
  expect(raw).not.toContain(NOTE);
  expect(raw).not.toContain(SECRET);
});

it('closing the agent sends the last counts; a collector answering 500 is counted, never thrown', async () => {
  const otlp = await otlpReceiver();
  const broken = await otlpReceiver(500);
  receivers.push(otlp, broken);
  // No interval given: the default (a minute) does not pass during the test.
  const agent = await agentWith([
    { type: 'otlp', endpoint: `${otlp.url}/v1/traces` },
    { type: 'otlp', endpoint: broken.url },
  ]);
  await runOnce(agent);
  expect(metricPosts(otlp.bodies)).toEqual([]);
  await agent.close();

  const posted = metricPosts(otlp.bodies);
  expect(posted).toHaveLength(1);
  expectRunCounts(metricsOf(posted[0]), 1);
  expect(metricPosts(broken.bodies)).toHaveLength(1);
  expect(agent.telemetry?.metrics().export_failures).toBeGreaterThan(0);
});

it('an OTLP endpoint names where metrics go', () => {
  expect(otlpMetricsUrl('http://127.0.0.1:4318')).toBe('http://127.0.0.1:4318/v1/metrics');
  expect(otlpMetricsUrl('http://127.0.0.1:4318/v1/traces')).toBe(
    'http://127.0.0.1:4318/v1/metrics',
  );
  expect(otlpMetricsUrl('http://127.0.0.1:4318/otel/')).toBe(
    'http://127.0.0.1:4318/otel/v1/metrics',
  );
});

it('metrics and traces carry one resource: service.name pincer and the same instance id', async () => {
  const otlp = await otlpReceiver();
  receivers.push(otlp);
  const agent = await agentWith([{ type: 'otlp', endpoint: otlp.url }]);
  await runOnce(agent);
  await agent.close();

  const spans = otlpSpans(otlp.bodies);
  expect(spans.length).toBeGreaterThan(0);
  const posted = metricPosts(otlp.bodies);
  expect(posted).toHaveLength(1);
  const payload = JSON.parse(posted[0]?.text ?? '{}') as {
    resourceMetrics: { resource?: { attributes?: OtlpAttribute[] } }[];
  };
  const resources = payload.resourceMetrics.map((r) =>
    Object.fromEntries((r.resource?.attributes ?? []).map((a) => [a.key, a.value.stringValue])),
  );
  const instance = resourceAttr(spans[0] as ReceivedSpan, 'service.instance.id');
  expect(resourceAttr(spans[0] as ReceivedSpan, 'service.name')).toBe('pincer');
  expect(typeof instance).toBe('string');
  expect(resources.length).toBeGreaterThan(0);
  for (const resource of resources) {
    expect(resource['service.name']).toBe('pincer');
    expect(resource['service.instance.id']).toBe(instance);
  }
});
