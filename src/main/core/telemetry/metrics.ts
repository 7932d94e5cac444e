/**
 * The counters telemetry keeps per process: tokens, cost, latency and outcomes. They are also
 * written onto the spans; the snapshot is what a surface (doctor, status) can show without an
 * exporter.
 */

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

export class TelemetryMetrics {
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
  }

  model(tokens: { input: number; output: number }, costUsd: number, ms: number): void {
    this.state.model_calls++;
    this.state.input_tokens += tokens.input;
    this.state.output_tokens += tokens.output;
    this.state.cost_usd += costUsd;
    observe(this.state.model_latency, ms);
  }

  tool(status: string, ms: number): void {
    this.state.tool_calls[status] = (this.state.tool_calls[status] ?? 0) + 1;
    observe(this.state.tool_latency, ms);
  }

  exportFailed(): void {
    this.state.export_failures++;
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
