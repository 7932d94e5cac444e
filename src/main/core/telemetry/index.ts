/**
 * Telemetry as the manifest declares it (CKP Telemetry primitive): run events become
 * OpenTelemetry spans (spans.ts) sent to the declared exporters (exporters.ts), sampled by trace
 * id, and counters (metrics.ts) that otlp exporters also receive as OpenTelemetry metrics
 * (metric-export.ts). Opened by the agent root only when the manifest has a Telemetry primitive.
 */
import { randomUUID } from 'node:crypto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { TelemetrySpec } from '../ckp/index.js';
import type { RunEvent } from '../runtime/index.js';
import { createExporter, type ProfileDb } from './exporters.js';
import { openMetricsExport } from './metric-export.js';
import { type MetricsSnapshot, TelemetryMetrics } from './metrics.js';
import {
  DerivedIds,
  RunSpans,
  type SpanAttributes,
  type SpanSpec,
  type TelemetrySettings,
} from './spans.js';

export {
  delegationSpanId,
  operationSpanId,
  parentSpanOf,
  spanTraceparent,
  traceparent,
} from './ids.js';

/** A span around work no run's events describe (a swarm operation, a delegated task). */
export interface TracedSpan {
  /** Ends it, with what is known by then; `failed` marks it an error. */
  end(attributes?: SpanAttributes, failed?: boolean): void;
}

/** What opens such spans: an agent's telemetry, when its manifest has one. */
export interface SpanOpener {
  span(spec: SpanSpec): TracedSpan;
}

export interface Telemetry extends SpanOpener {
  /** Every run event, in order; never throws. */
  consume(event: RunEvent): void;
  metrics(): MetricsSnapshot;
  /** Sends what is batched, and the metrics as they stand to the otlp exporters. */
  flush(): Promise<void>;
  /** Ends open spans, sends the last spans and metrics and shuts the exporters down. */
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
    worldModelOps: spec.events.world_model_ops,
    planningOps: spec.events.planning_ops,
  };
}

export async function openTelemetry(spec: TelemetrySpec, deps: TelemetryDeps): Promise<Telemetry> {
  const tokens = await Promise.all(
    spec.exporters.map(async (exporter) => {
      const ref = exporter.auth?.secret_ref;
      return ref ? await deps.secret(ref) : undefined;
    }),
  );
  // The counters are recorded on OpenTelemetry instruments when an otlp exporter will send them.
  let countFailure = () => {};
  // One resource for traces and metrics: a collector joins them by service.instance.id, which
  // also tells apart the processes whose spans one trace gathers (a swarm's).
  const resource = resourceFromAttributes({
    'service.name': 'pincer',
    'service.instance.id': randomUUID(),
  });
  const metricsExport = openMetricsExport(spec.exporters, tokens, () => countFailure(), resource);
  const metrics = new TelemetryMetrics(metricsExport?.meter, {
    tokens: spec.metrics.token_usage,
    cost: spec.metrics.cost_usd,
    latency: spec.metrics.latency_histogram,
  });
  countFailure = () => metrics.exportFailed();
  const processors = spec.exporters.map(
    (exporter, index) =>
      new BatchSpanProcessor(createExporter(exporter, tokens[index], metrics, deps.profile), {
        ...(exporter.batch?.max_size ? { maxExportBatchSize: exporter.batch.max_size } : {}),
        ...(exporter.batch?.flush_interval_ms
          ? { scheduledDelayMillis: exporter.batch.flush_interval_ms }
          : {}),
      }),
  );
  const ids = new DerivedIds();
  // Sampling is decided per trace id in RunSpans; the SDK records every span it is given.
  const provider = new BasicTracerProvider({
    idGenerator: ids,
    spanProcessors: processors,
    resource,
  });
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
    span(spec) {
      if (closed) return { end() {} };
      try {
        const span = spans.openSpan(spec);
        if (!span) return { end() {} };
        return {
          end(attributes = {}, failed = false) {
            try {
              spans.endSpan(span, attributes, failed);
            } catch {
              // As with consume: a span lost, never the work.
            }
          },
        };
      } catch {
        return { end() {} };
      }
    },
    metrics: () => metrics.snapshot(),
    async flush() {
      // Each processor on its own: one failing exporter must not cut the others' flush short.
      await Promise.all([
        Promise.allSettled(processors.map((processor) => processor.forceFlush())),
        metricsExport?.flush(),
      ]);
    },
    async close() {
      if (closed) return;
      closed = true;
      spans.endAll();
      await Promise.all([
        Promise.allSettled(processors.map((processor) => processor.shutdown())).then(() =>
          provider.shutdown().catch(() => undefined),
        ),
        metricsExport?.close(),
      ]);
    },
  };
}
