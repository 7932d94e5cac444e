/**
 * The telemetry counters on OpenTelemetry instruments, read back through the SDK's in-memory
 * exporter: the names and units, the attributes (names and outcomes, nothing else), and the
 * manifest's switches turning instruments off while the snapshot still counts.
 */
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { afterEach, expect, it } from 'vitest';
import { TelemetryMetrics } from '../../src/main/core/telemetry/metrics.js';

let providers: MeterProvider[] = [];
afterEach(async () => {
  await Promise.all(providers.map((p) => p.shutdown()));
  providers = [];
});

function metered(figures?: { tokens: boolean; cost: boolean; latency: boolean }) {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 60_000 });
  const provider = new MeterProvider({ readers: [reader] });
  providers.push(provider);
  const metrics = new TelemetryMetrics(provider.getMeter('test'), figures);
  const collected = async () => {
    await provider.forceFlush();
    const last = exporter.getMetrics().at(-1);
    return new Map(
      (last?.scopeMetrics ?? [])
        .flatMap((scope) => scope.metrics)
        .map((metric) => [metric.descriptor.name, metric]),
    );
  };
  return { metrics, collected };
}

it('records runs, model calls, tokens, durations in seconds, cost and tool calls', async () => {
  const { metrics, collected } = metered();
  metrics.model({ input: 120, output: 30 }, 0.002, 1500, { model: 'openai/gpt-test' });
  metrics.tool('ok', 250, 'fs/read');
  metrics.tool('denied', 0, 'sys/exec');
  metrics.run('completed');
  metrics.exportFailed();
  const got = await collected();
  expect([...got.keys()].sort()).toEqual([
    'gen_ai.client.operation.duration',
    'gen_ai.client.token.usage',
    'pincer.model.calls',
    'pincer.model.cost',
    'pincer.runs',
    'pincer.telemetry.export_failures',
    'pincer.tool.calls',
    'pincer.tool.duration',
  ]);
  const tokens = got.get('gen_ai.client.token.usage');
  expect(tokens?.descriptor.unit).toBe('{token}');
  const byType = Object.fromEntries(
    (tokens?.dataPoints ?? []).map((p) => [
      String(p.attributes['gen_ai.token.type']),
      (p.value as { sum: number }).sum,
    ]),
  );
  expect(byType).toEqual({ input: 120, output: 30 });
  expect(tokens?.dataPoints[0]?.attributes).toMatchObject({
    'gen_ai.operation.name': 'chat',
    'gen_ai.response.model': 'openai/gpt-test',
  });
  const duration = got.get('gen_ai.client.operation.duration');
  expect(duration?.descriptor.unit).toBe('s');
  expect((duration?.dataPoints[0]?.value as { sum: number } | undefined)?.sum).toBeCloseTo(1.5);
  expect(got.get('pincer.model.cost')?.dataPoints[0]?.value).toBeCloseTo(0.002);
  const tools = (got.get('pincer.tool.calls')?.dataPoints ?? []).map((p) => ({
    ...p.attributes,
    n: p.value,
  }));
  expect(tools).toEqual(
    expect.arrayContaining([
      { 'gen_ai.tool.name': 'fs/read', 'pincer.tool.status': 'ok', n: 1 },
      { 'gen_ai.tool.name': 'sys/exec', 'pincer.tool.status': 'denied', n: 1 },
    ]),
  );
  expect(got.get('pincer.runs')?.dataPoints[0]).toMatchObject({
    attributes: { 'pincer.run.outcome': 'completed' },
    value: 1,
  });
});

it("the manifest's switches turn instruments off; the snapshot still counts", async () => {
  const { metrics, collected } = metered({ tokens: false, cost: false, latency: false });
  metrics.model({ input: 5, output: 6 }, 0.5, 100, { model: 'm' });
  metrics.tool('ok', 10, 'fs/read');
  const got = await collected();
  expect(got.has('gen_ai.client.token.usage')).toBe(false);
  expect(got.has('pincer.model.cost')).toBe(false);
  expect(got.has('gen_ai.client.operation.duration')).toBe(false);
  expect(got.has('pincer.tool.duration')).toBe(false);
  expect(got.get('pincer.model.calls')?.dataPoints[0]?.value).toBe(1);
  expect(metrics.snapshot()).toMatchObject({ input_tokens: 5, output_tokens: 6, cost_usd: 0.5 });
});
