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

/** A W3C `traceparent` header (version 00, sampled) naming a run's span in its trace. */
export function traceparent(traceId: string, runId?: string): string {
  const span = runId ? runSpanId(runId) : otelSpanId(`root:${traceId}`);
  return `00-${otelTraceId(traceId)}-${span}-01`;
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
