/**
 * Telemetry ids: derived from Pincer's ids, so every process of a trace (a delegated child, a
 * swarm worker across NATS) agrees on them; sampling decided per trace id alone.
 */
import { expect, it } from 'vitest';
import {
  delegationSpanId,
  otelSpanId,
  otelTraceId,
  parentSpanOf,
  runSpanId,
  sampled,
  spanTraceparent,
  traceparent,
} from '../../src/main/core/telemetry/ids.js';

it('derives W3C-valid ids deterministically from Pincer ids', () => {
  const trace = otelTraceId('tr_abc');
  expect(trace).toMatch(/^[0-9a-f]{32}$/);
  expect(trace).not.toMatch(/^0+$/);
  expect(otelTraceId('tr_abc')).toBe(trace);
  expect(otelTraceId('tr_abd')).not.toBe(trace);
  expect(runSpanId('run_1')).toMatch(/^[0-9a-f]{16}$/);
  expect(runSpanId('run_1')).toBe(otelSpanId('run:run_1'));
  expect(runSpanId('run_1')).not.toBe(runSpanId('run_2'));
});

it('builds a W3C traceparent naming the trace and, when given, the run span', () => {
  const header = traceparent('tr_abc', 'run_1');
  expect(header).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  expect(header).toBe(`00-${otelTraceId('tr_abc')}-${runSpanId('run_1')}-01`);
  expect(traceparent('tr_abc')).toMatch(
    new RegExp(`^00-${otelTraceId('tr_abc')}-[0-9a-f]{16}-01$`),
  );
});

it('samples whole traces: the same answer for one trace id, about the rate over many', () => {
  const ids = Array.from({ length: 2000 }, (_, i) => `tr_${i}`);
  expect(ids.every((id) => sampled(id, 1))).toBe(true);
  expect(ids.some((id) => sampled(id, 0))).toBe(false);
  const kept = ids.filter((id) => sampled(id, 0.25));
  expect(kept.length).toBeGreaterThan(400);
  expect(kept.length).toBeLessThan(600);
  expect(ids.filter((id) => sampled(id, 0.25))).toEqual(kept);
  // A lower rate keeps a subset of a higher one: raising the rate never drops a trace.
  expect(ids.filter((id) => sampled(id, 0.1)).every((id) => kept.includes(id))).toBe(true);
});

it("reads a traceparent's span only when it is well formed and in the expected trace", () => {
  const span = delegationSpanId('swt_1');
  const header = spanTraceparent('tr_abc', span);
  expect(parentSpanOf(header, 'tr_abc')).toBe(span);
  // Another trace's header, a zero span, a malformed or missing header: no parent.
  expect(parentSpanOf(header, 'tr_other')).toBeUndefined();
  expect(
    parentSpanOf(`00-${otelTraceId('tr_abc')}-${'0'.repeat(16)}-01`, 'tr_abc'),
  ).toBeUndefined();
  expect(parentSpanOf(`01-${otelTraceId('tr_abc')}-${span}-01`, 'tr_abc')).toBeUndefined();
  expect(
    parentSpanOf(`00-${otelTraceId('tr_abc')}-${span.toUpperCase()}-01`, 'tr_abc'),
  ).toBeUndefined();
  expect(parentSpanOf('garbage', 'tr_abc')).toBeUndefined();
  expect(parentSpanOf(undefined, 'tr_abc')).toBeUndefined();
});
