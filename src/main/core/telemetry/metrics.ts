/**
 * The counters telemetry keeps per process: tokens, cost, latency and outcomes. They are also
 * written onto the spans; the snapshot is what a surface (doctor, status) can show without an
 * exporter. Given a Meter, each observation is also recorded on OpenTelemetry instruments, which
 * the metric readers of the otlp exporters send (names after the GenAI semantic conventions where
 * they exist, `pincer.*` for the rest; attributes never carry prompt text, arguments or secrets).
 */
import type { Attributes, Counter, Histogram, Meter } from '@opentelemetry/api';

/** Upper bounds (ms) of the latency histogram's buckets; the last bucket is everything above. */
export const LATENCY_BUCKETS_MS = [10, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000];

export interface Latency {
  count: number;
  sum_ms: number;
  /** Counts per bucket of LATENCY_BUCKETS_MS, plus one for above the last bound. */
  buckets: number[];
}

export interface MetricsSnapshot {
  runs: Record<string, number>;
  model_calls: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  tool_calls: Record<string, number>;
  model_latency: Latency;
  tool_latency: Latency;
  /** Batches an exporter failed to deliver (swallowed: telemetry never fails a run). */
  export_failures: number;
}

const latency = (): Latency => ({
  count: 0,
  sum_ms: 0,
  buckets: new Array(LATENCY_BUCKETS_MS.length + 1).fill(0),
});

/** The GenAI conventions' advised bucket bounds: tokens, and durations in seconds. */
const TOKEN_BOUNDS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304];
const SECONDS_BOUNDS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

/** Which figures are exported (the manifest's `metrics` switches). */
export interface ExportedFigures {
  tokens: boolean;
  cost: boolean;
  latency: boolean;
}

/** What a model call is labelled with: the model's and its provider's names, nothing else. */
export interface ModelLabels {
  model?: string;
  provider?: string;
}

class Instruments {
  readonly runs: Counter;
  readonly modelCalls: Counter;
  readonly tokens: Histogram;
  readonly modelDuration: Histogram;
  readonly cost: Counter;
  readonly toolCalls: Counter;
  readonly toolDuration: Histogram;
  readonly exportFailures: Counter;

  constructor(
    meter: Meter,
    readonly figures: ExportedFigures,
  ) {
    this.runs = meter.createCounter('pincer.runs', {
      description: 'Runs finished, by outcome',
      unit: '{run}',
    });
    this.modelCalls = meter.createCounter('pincer.model.calls', {
      description: 'Model calls finished',
      unit: '{call}',
    });
    this.tokens = meter.createHistogram('gen_ai.client.token.usage', {
      description: 'Number of input and output tokens used',
      unit: '{token}',
      advice: { explicitBucketBoundaries: TOKEN_BOUNDS },
    });
    this.modelDuration = meter.createHistogram('gen_ai.client.operation.duration', {
      description: 'GenAI operation duration',
      unit: 's',
      advice: { explicitBucketBoundaries: SECONDS_BOUNDS },
    });
    this.cost = meter.createCounter('pincer.model.cost', {
      description: 'Estimated cost of model calls',
      unit: 'USD',
    });
    this.toolCalls = meter.createCounter('pincer.tool.calls', {
      description: 'Tool calls finished, by status (ok, error, denied)',
      unit: '{call}',
    });
    this.toolDuration = meter.createHistogram('pincer.tool.duration', {
      description: 'Tool call duration',
      unit: 's',
      advice: { explicitBucketBoundaries: SECONDS_BOUNDS },
    });
    this.exportFailures = meter.createCounter('pincer.telemetry.export_failures', {
      description: 'Batches an exporter failed to deliver',
      unit: '{batch}',
    });
  }
}

export class TelemetryMetrics {
  private readonly instruments: Instruments | undefined;

  constructor(
    meter?: Meter,
    figures: ExportedFigures = { tokens: true, cost: true, latency: true },
  ) {
    this.instruments = meter ? new Instruments(meter, figures) : undefined;
  }

  private readonly state: MetricsSnapshot = {
    runs: {},
    model_calls: 0,
    input_tokens: 0,
    output_tokens: 0,
    cost_usd: 0,
    tool_calls: {},
    model_latency: latency(),
    tool_latency: latency(),
    export_failures: 0,
  };

  run(outcome: string): void {
    this.state.runs[outcome] = (this.state.runs[outcome] ?? 0) + 1;
    this.instruments?.runs.add(1, { 'pincer.run.outcome': outcome });
  }

  model(
    tokens: { input: number; output: number },
    costUsd: number,
    ms: number,
    labels: ModelLabels = {},
  ): void {
    this.state.model_calls++;
    this.state.input_tokens += tokens.input;
    this.state.output_tokens += tokens.output;
    this.state.cost_usd += costUsd;
    observe(this.state.model_latency, ms);
    const i = this.instruments;
    if (!i) return;
    const attributes: Attributes = {
      'gen_ai.operation.name': 'chat',
      ...(labels.provider ? { 'gen_ai.provider.name': labels.provider } : {}),
      ...(labels.model ? { 'gen_ai.response.model': labels.model } : {}),
    };
    i.modelCalls.add(1, attributes);
    if (i.figures.tokens) {
      i.tokens.record(tokens.input, { ...attributes, 'gen_ai.token.type': 'input' });
      i.tokens.record(tokens.output, { ...attributes, 'gen_ai.token.type': 'output' });
    }
    if (i.figures.cost) i.cost.add(costUsd, attributes);
    if (i.figures.latency) i.modelDuration.record(ms / 1000, attributes);
  }

  tool(status: string, ms: number, name?: string): void {
    this.state.tool_calls[status] = (this.state.tool_calls[status] ?? 0) + 1;
    observe(this.state.tool_latency, ms);
    const i = this.instruments;
    if (!i) return;
    const attributes: Attributes = {
      'pincer.tool.status': status,
      ...(name ? { 'gen_ai.tool.name': name } : {}),
    };
    i.toolCalls.add(1, attributes);
    if (i.figures.latency) i.toolDuration.record(ms / 1000, attributes);
  }

  exportFailed(): void {
    this.state.export_failures++;
    this.instruments?.exportFailures.add(1);
  }

  snapshot(): MetricsSnapshot {
    return structuredClone(this.state);
  }
}

function observe(into: Latency, ms: number): void {
  into.count++;
  into.sum_ms += ms;
  const bucket = LATENCY_BUCKETS_MS.findIndex((bound) => ms <= bound);
  const index = bucket < 0 ? LATENCY_BUCKETS_MS.length : bucket;
  into.buckets[index] = (into.buckets[index] ?? 0) + 1;
}
