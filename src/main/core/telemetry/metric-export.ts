/**
 * Metrics for the manifest's otlp exporters: an OpenTelemetry MeterProvider with one periodic
 * reader per otlp exporter, each posting OTLP/JSON to the collector's `/v1/metrics`. A failed
 * post is counted (the telemetry counters' export failures) and swallowed, like a span batch.
 */
import type { Meter } from '@opentelemetry/api';
import { JsonMetricsSerializer } from '@opentelemetry/otlp-transformer';
import type { Resource } from '@opentelemetry/resources';
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import { PincerError } from '../errors.js';
import { EXPORT_TIMEOUT_MS, type ExporterSpec } from './exporters.js';

/** ExportResultCode of @opentelemetry/core, which is not a direct dependency. */
const SUCCESS = 0;
const FAILED = 1;

/** How often metrics are sent when the exporter's `batch.flush_interval_ms` does not say. */
export const METRICS_INTERVAL_MS = 60_000;

/**
 * Where the metrics of an OTLP endpoint go: a collector's base URL gets `/v1/metrics`; a traces
 * URL (`…/v1/traces`) has that swapped for `/v1/metrics`; any other path is taken as the base.
 */
export function otlpMetricsUrl(endpoint: string): string {
  const url = new URL(endpoint);
  const base = url.pathname.replace(/\/v1\/traces\/?$/, '').replace(/\/+$/, '');
  url.pathname = `${base}/v1/metrics`;
  return url.toString();
}

/** Posts each collection as one OTLP/JSON request; one post at a time per exporter is enough. */
export class OtlpMetricExporter implements PushMetricExporter {
  private readonly pending = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly url: string,
    private readonly headers: Record<string, string>,
    private readonly failed: () => void,
  ) {}

  export(metrics: ResourceMetrics, done: (result: { code: number; error?: Error }) => void): void {
    if (this.stopped) {
      done({
        code: FAILED,
        error: new PincerError('cancelled', 'the metric exporter is shut down'),
      });
      return;
    }
    const post = this.post(metrics).then(
      () => done({ code: SUCCESS }),
      (error: unknown) => {
        this.failed();
        done({ code: FAILED, error: error instanceof Error ? error : new Error(String(error)) });
      },
    );
    this.pending.add(post);
    void post.finally(() => this.pending.delete(post));
  }

  private async post(metrics: ResourceMetrics): Promise<void> {
    const bytes = JsonMetricsSerializer.serializeRequest(metrics);
    if (!bytes) throw new PincerError('internal', 'the metrics could not be serialized');
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...this.headers },
      body: new TextDecoder().decode(bytes),
      signal: AbortSignal.timeout(EXPORT_TIMEOUT_MS),
      redirect: 'error',
    });
    await response.body?.cancel();
    if (!response.ok)
      throw new PincerError('unavailable', `the metrics collector answered ${response.status}`);
  }

  async forceFlush(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  async shutdown(): Promise<void> {
    await this.forceFlush();
    this.stopped = true;
  }
}

export interface MetricsExport {
  meter: Meter;
  flush(): Promise<void>;
  /** Collects and sends once more, then stops the readers. */
  close(): Promise<void>;
}

/**
 * The export of metrics for the otlp exporters among `exporters` (`tokens` holds each one's
 * resolved secret_ref, by index); undefined when none is declared.
 */
export function openMetricsExport(
  exporters: readonly ExporterSpec[],
  tokens: readonly (string | undefined)[],
  failed: () => void,
  resource?: Resource,
): MetricsExport | undefined {
  const readers = exporters.flatMap((spec, index) => {
    if (spec.type !== 'otlp' || !spec.endpoint) return [];
    const token = tokens[index];
    const interval = spec.batch?.flush_interval_ms ?? METRICS_INTERVAL_MS;
    return [
      new PeriodicExportingMetricReader({
        exporter: new OtlpMetricExporter(
          otlpMetricsUrl(spec.endpoint),
          token ? { authorization: `Bearer ${token}` } : {},
          failed,
        ),
        exportIntervalMillis: interval,
        // The SDK refuses a timeout longer than the interval.
        exportTimeoutMillis: Math.min(EXPORT_TIMEOUT_MS, interval),
      }),
    ];
  });
  if (readers.length === 0) return undefined;
  // Without a resource the SDK names the service `unknown_service:node`.
  const provider = new MeterProvider({ readers, ...(resource ? { resource } : {}) });
  return {
    meter: provider.getMeter('pincer'),
    flush: () => provider.forceFlush().catch(() => undefined),
    close: () => provider.shutdown().catch(() => undefined),
  };
}
