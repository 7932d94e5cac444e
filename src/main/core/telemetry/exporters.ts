/**
 * The exporters of the Telemetry primitive, as OpenTelemetry SpanExporters: otlp is the SDK's
 * OTLP/HTTP exporter; file (JSON lines), sqlite (a table), webhook (POST JSON) and console
 * (stderr) write the same flat record of a span. A failing exporter is counted, never thrown:
 * telemetry must not fail a run.
 */
import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Attributes } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { TelemetrySpec } from '../ckp/index.js';
import { PincerError } from '../errors.js';
import { type Db, openDatabase } from '../storage/index.js';
import type { TelemetryMetrics } from './metrics.js';

/** ExportResultCode of @opentelemetry/core, which is not a direct dependency. */
const SUCCESS = 0;
const FAILED = 1;
type Done = (result: { code: number; error?: Error }) => void;

/** A span as the non-OTLP exporters write it. */
export interface SpanRecord {
  trace_id: string;
  span_id: string;
  parent_span_id?: string;
  name: string;
  start_ms: number;
  end_ms: number;
  status: 'ok' | 'error' | 'unset';
  status_message?: string;
  attributes: Attributes;
}

const hrMs = ([s, ns]: [number, number]) => s * 1000 + ns / 1e6;

export function spanRecord(span: ReadableSpan): SpanRecord {
  const context = span.spanContext();
  const parent = span.parentSpanContext?.spanId;
  const status = (['unset', 'ok', 'error'] as const)[span.status.code] ?? 'unset';
  return {
    trace_id: context.traceId,
    span_id: context.spanId,
    ...(parent ? { parent_span_id: parent } : {}),
    name: span.name,
    start_ms: hrMs(span.startTime),
    end_ms: hrMs(span.endTime),
    status,
    ...(span.status.message ? { status_message: span.status.message } : {}),
    attributes: span.attributes,
  };
}

/** Writes records somewhere; a rejection counts as a failed export. */
abstract class RecordExporter implements SpanExporter {
  private pending = Promise.resolve();
  constructor(private readonly metrics: TelemetryMetrics) {}
  protected abstract write(records: SpanRecord[]): Promise<void>;

  export(spans: ReadableSpan[], done: Done): void {
    // One write at a time, in order: lines of one file never interleave.
    this.pending = this.pending.then(() =>
      this.write(spans.map(spanRecord)).then(
        () => done({ code: SUCCESS }),
        (error: unknown) => {
          this.metrics.exportFailed();
          done({ code: FAILED, error: error instanceof Error ? error : new Error(String(error)) });
        },
      ),
    );
  }

  async forceFlush(): Promise<void> {
    await this.pending;
  }

  async shutdown(): Promise<void> {
    await this.pending;
  }
}

class FileExporter extends RecordExporter {
  constructor(
    private readonly file: string,
    metrics: TelemetryMetrics,
  ) {
    super(metrics);
  }
  protected async write(records: SpanRecord[]): Promise<void> {
    await mkdir(path.dirname(this.file), { recursive: true });
    await appendFile(this.file, records.map((r) => `${JSON.stringify(r)}\n`).join(''), {
      mode: 0o600,
    });
  }
}

class ConsoleExporter extends RecordExporter {
  protected async write(records: SpanRecord[]): Promise<void> {
    for (const record of records) process.stderr.write(`[telemetry] ${JSON.stringify(record)}\n`);
  }
}

export const SPANS_TABLE = 'telemetry_spans';

class SqliteExporter extends RecordExporter {
  /**
   * `shared` is the profile database when the manifest names its file: one connection, which
   * its owner closes; any other path gets a database of its own.
   */
  constructor(
    private readonly db: Db,
    private readonly owned: boolean,
    metrics: TelemetryMetrics,
  ) {
    super(metrics);
    this.db.exec(`create table if not exists ${SPANS_TABLE} (
      trace_id text not null, span_id text not null, parent_span_id text, name text not null,
      start_ms real not null, end_ms real not null, status text not null, status_message text,
      attributes text not null, primary key (trace_id, span_id))`);
  }
  protected async write(records: SpanRecord[]): Promise<void> {
    const insert = this.db.prepare(
      `insert or replace into ${SPANS_TABLE} values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.db.transaction(() => {
      for (const r of records)
        insert.run(
          r.trace_id,
          r.span_id,
          r.parent_span_id ?? null,
          r.name,
          r.start_ms,
          r.end_ms,
          r.status,
          r.status_message ?? null,
          JSON.stringify(r.attributes),
        );
    })();
  }
  override async shutdown(): Promise<void> {
    await super.shutdown();
    if (this.owned) this.db.close();
  }
}

/** How long an OTLP or webhook POST may take before the batch is given up (and counted). */
export const EXPORT_TIMEOUT_MS = 5000;

class WebhookExporter extends RecordExporter {
  constructor(
    private readonly url: string,
    private readonly headers: Record<string, string>,
    metrics: TelemetryMetrics,
  ) {
    super(metrics);
  }
  protected async write(records: SpanRecord[]): Promise<void> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...this.headers },
      body: JSON.stringify({ spans: records }),
      signal: AbortSignal.timeout(EXPORT_TIMEOUT_MS),
      redirect: 'error',
    });
    await response.body?.cancel();
    if (!response.ok) throw new PincerError('unavailable', `webhook answered ${response.status}`);
  }
}

/** Counts the SDK exporter's failures like the others'. */
class CountedExporter implements SpanExporter {
  constructor(
    private readonly inner: SpanExporter,
    private readonly metrics: TelemetryMetrics,
  ) {}
  export(spans: ReadableSpan[], done: Done): void {
    this.inner.export(spans, (result) => {
      if (result.code !== SUCCESS) this.metrics.exportFailed();
      done(result);
    });
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** An OTLP endpoint given as a collector's base URL gets the traces path appended. */
export function otlpTracesUrl(endpoint: string): string {
  const url = new URL(endpoint);
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/v1/traces';
  return url.toString();
}

export type ExporterSpec = TelemetrySpec['exporters'][number];

/** The profile database, which a sqlite exporter naming its file shares. */
export interface ProfileDb {
  path: string;
  db: Db;
}

/** The exporter a declaration asks for; `token` is the resolved secret_ref, if any. */
export function createExporter(
  spec: ExporterSpec,
  token: string | undefined,
  metrics: TelemetryMetrics,
  profile?: ProfileDb,
): SpanExporter {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const need = (value: string | undefined, field: string) => {
    // The loader's rule telemetry.exporter-fields already refused a manifest without it.
    if (!value)
      throw new PincerError('invalid_request', `telemetry exporter ${spec.type} needs ${field}`);
    return value;
  };
  switch (spec.type) {
    case 'otlp':
      return new CountedExporter(
        new OTLPTraceExporter({
          url: otlpTracesUrl(need(spec.endpoint, 'endpoint')),
          headers,
          // A collector that is down must not hold the agent's close for long.
          timeoutMillis: EXPORT_TIMEOUT_MS,
        }),
        metrics,
      );
    case 'webhook':
      return new WebhookExporter(need(spec.endpoint, 'endpoint'), headers, metrics);
    case 'file':
      return new FileExporter(need(spec.path, 'path'), metrics);
    case 'sqlite': {
      const file = path.resolve(need(spec.path, 'path'));
      return profile && path.resolve(profile.path) === file
        ? new SqliteExporter(profile.db, false, metrics)
        : new SqliteExporter(openDatabase(file, { vectors: false }), true, metrics);
    }
    case 'console':
      return new ConsoleExporter(metrics);
  }
}
