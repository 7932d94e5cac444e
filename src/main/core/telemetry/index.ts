/**
 * Telemetry as the manifest declares it (CKP Telemetry primitive): run events become
 * OpenTelemetry spans (spans.ts) sent to the declared exporters (exporters.ts), sampled by trace
 * id. Opened by the agent root only when the manifest has a Telemetry primitive.
 */
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { TelemetrySpec } from '../ckp/index.js';
import type { RunEvent } from '../runtime/index.js';
import { createExporter, type ProfileDb } from './exporters.js';
import { type MetricsSnapshot, TelemetryMetrics } from './metrics.js';
import { DerivedIds, RunSpans, type TelemetrySettings } from './spans.js';

export { SPANS_TABLE, type SpanRecord } from './exporters.js';
export { otelSpanId, otelTraceId, runSpanId, sampled, traceparent } from './ids.js';
export type { MetricsSnapshot } from './metrics.js';

export interface Telemetry {
  /** Every run event, in order; never throws. */
  consume(event: RunEvent): void;
  metrics(): MetricsSnapshot;
  /** Sends what is batched. */
  flush(): Promise<void>;
  /** Ends open spans, flushes and shuts the exporters down. */
  close(): Promise<void>;
}

export interface TelemetryDeps {
  /** The content scanner's redaction: what opted-in arguments and results pass through. */
  screen: <T>(value: T) => T;
  /** Resolves an exporter's auth.secret_ref. */
  secret: (name: string) => Promise<string | undefined>;
  /** The profile database: a sqlite exporter naming its file writes a table there. */
  profile?: ProfileDb;
}

export function settingsOf(spec: TelemetrySpec): TelemetrySettings {
  return {
    rate: spec.sampling.rate,
    toolCalls: spec.events.tool_calls,
    errors: spec.events.errors,
    tokens: spec.metrics.token_usage,
    cost: spec.metrics.cost_usd,
    latency: spec.metrics.latency_histogram,
    // Pincer exports no argument or result unless the manifest says `strip_*: false` itself.
    arguments: spec.redaction.strip_arguments === false,
    results: spec.redaction.strip_results === false,
  };
}

export async function openTelemetry(spec: TelemetrySpec, deps: TelemetryDeps): Promise<Telemetry> {
  const metrics = new TelemetryMetrics();
  const processors = await Promise.all(
    spec.exporters.map(async (exporter) => {
      const ref = exporter.auth?.secret_ref;
      const token = ref ? await deps.secret(ref) : undefined;
      return new BatchSpanProcessor(createExporter(exporter, token, metrics, deps.profile), {
        ...(exporter.batch?.max_size ? { maxExportBatchSize: exporter.batch.max_size } : {}),
        ...(exporter.batch?.flush_interval_ms
          ? { scheduledDelayMillis: exporter.batch.flush_interval_ms }
          : {}),
      });
    }),
  );
  const ids = new DerivedIds();
  // Sampling is decided per trace id in RunSpans; the SDK records every span it is given.
  const provider = new BasicTracerProvider({ idGenerator: ids, spanProcessors: processors });
  const spans = new RunSpans(
    provider.getTracer('pincer'),
    ids,
    settingsOf(spec),
    deps.screen,
    metrics,
  );
  let closed = false;
  return {
    consume(event) {
      if (closed) return;
      try {
        spans.consume(event);
      } catch {
        // A malformed event or an SDK bug costs a span, never the run.
      }
    },
    metrics: () => metrics.snapshot(),
    flush: () => provider.forceFlush().catch(() => undefined),
    async close() {
      if (closed) return;
      closed = true;
      spans.endAll();
      await provider.shutdown().catch(() => undefined);
    },
  };
}
