/**
 * OpenTelemetry ids derived from Pincer's own ids. Every process that sees a Pincer trace id (a
 * delegated child, a swarm worker across NATS) computes the same OTel trace id and the same span
 * id for a run, so a swarm is one trace without any process telling another its span ids.
 */
import { createHash } from 'node:crypto';

const hex = (text: string, length: number) =>
  createHash('sha256').update(text).digest('hex').slice(0, length);

/** Never all zeros: W3C calls that id invalid and exporters drop the span. */
const valid = (id: string) => (/^0+$/.test(id) ? `${id.slice(0, -1)}1` : id);

/** The 32-hex OTel trace id of a Pincer trace id. */
export function otelTraceId(traceId: string): string {
  return valid(hex(`trace:${traceId}`, 32));
}

/** A 16-hex span id for one thing a trace holds (a run, a tool call, a model call). */
export function otelSpanId(key: string): string {
  return valid(hex(`span:${key}`, 16));
}

/** The span id of a run: the parent of its model, tool and approval spans and of its children. */
export const runSpanId = (runId: string) => otelSpanId(`run:${runId}`);

/** The span of one swarm operation a leader runs: the parent of its delegation spans. */
export const operationSpanId = (operation: string) => otelSpanId(`swarm.operation:${operation}`);

/** The span of one swarm task sent: the parent of the worker's run for that task. */
export const delegationSpanId = (taskId: string) => otelSpanId(`swarm.delegate:${taskId}`);

/** A W3C `traceparent` header (version 00, sampled) naming a run's span in its trace. */
export function traceparent(traceId: string, runId?: string): string {
  const span = runId ? runSpanId(runId) : otelSpanId(`root:${traceId}`);
  return spanTraceparent(traceId, span);
}

/** A `traceparent` naming any span (by its OTel span id) in a Pincer trace. */
export const spanTraceparent = (traceId: string, spanId: string) =>
  `00-${otelTraceId(traceId)}-${spanId}-01`;

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

/**
 * The parent span id a `traceparent` names, when it is well formed, not all zeros, and in the
 * OTel trace of `traceId`: a header from another trace (or forged) must not graft a run there.
 */
export function parentSpanOf(header: string | undefined, traceId: string): string | undefined {
  const match = header ? TRACEPARENT.exec(header.trim()) : null;
  if (!match) return undefined;
  const [, trace, span] = match as unknown as [string, string, string];
  if (/^0+$/.test(span) || trace !== otelTraceId(traceId)) return undefined;
  return span;
}

/**
 * Whether a trace is sampled at `rate` (0..1). Decided by the trace id alone, so every run and
 * every process of one trace agrees: a trace is exported whole or not at all.
 */
export function sampled(traceId: string, rate: number): boolean {
  if (rate >= 1) return true;
  if (rate <= 0) return false;
  const bucket = Number.parseInt(hex(`sample:${traceId}`, 8), 16) / 0x1_0000_0000;
  return bucket < rate;
}
