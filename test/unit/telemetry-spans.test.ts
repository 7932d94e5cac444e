/**
 * Run events to spans, fed a hand-written event stream and read back from the file exporter:
 * refused calls, failed runs (their reason screened), resumed runs, runs cut off at close, and
 * a stray event after a run finished.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { telemetrySpec } from '../../src/main/core/ckp/schemas.js';
import type { RunEvent, RunEventBody } from '../../src/main/core/runtime/events.js';
import type { SpanRecord } from '../../src/main/core/telemetry/exporters.js';
import { runSpanId } from '../../src/main/core/telemetry/ids.js';
import { openTelemetry, type Telemetry } from '../../src/main/core/telemetry/index.js';
import type { RunId, SessionId, TaskId, TraceId } from '../../src/main/core/terms.js';
import { expect, it } from '../support/fixtures.js';

const SECRET = 'hunter2-secret-value';
/** Stands in for the content scanner: the one value it knows. */
const screen = <T>(value: T): T =>
  JSON.parse(JSON.stringify(value).replaceAll(SECRET, '[REDACTED:known]')) as T;

async function open(
  dir: string,
  extra: Record<string, unknown> = {},
): Promise<{
  telemetry: Telemetry;
  spans: () => Promise<SpanRecord[]>;
}> {
  const file = path.join(dir, 'spans.jsonl');
  const spec = telemetrySpec.parse({ exporters: [{ type: 'file', path: file }], ...extra });
  const telemetry = await openTelemetry(spec, { screen, secret: async () => undefined });
  return {
    telemetry,
    spans: async () =>
      (await readFile(file, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as SpanRecord),
  };
}

function stream(run: string) {
  let seq = 0;
  const start = Date.parse('2026-01-01T00:00:00Z');
  return (body: RunEventBody): RunEvent => {
    seq++;
    return {
      ...body,
      trace_id: 'tr_1' as TraceId,
      task_id: 'task_1' as TaskId,
      session_id: 'ses_1' as SessionId,
      run_id: run as RunId,
      seq,
      // Ten milliseconds per event: spans have a length.
      at: new Date(start + seq * 10).toISOString(),
    } as RunEvent;
  };
}

const usage = { input_tokens: 1, output_tokens: 1 };
const call = { id: 'c1', name: 'x/do', input: { key: SECRET } };

it('a refused call and a failed run are error spans; results opted in and the reason are screened', async ({
  dataDir,
}) => {
  const { telemetry, spans } = await open(dataDir, { redaction: { strip_results: false } });
  const e = stream('run_a');
  telemetry.consume(e({ type: 'run.started', goal: `use ${SECRET}`, resumed: false }));
  telemetry.consume(e({ type: 'tool.requested', call, read_only: false }));
  telemetry.consume(e({ type: 'policy.decided', call_id: 'c1', decision: 'deny' }));
  telemetry.consume(
    e({
      type: 'tool.finished',
      call_id: 'c1',
      name: 'x/do',
      is_error: true,
      status: 'denied',
      duration_ms: 5,
      output: `denied for ${SECRET}`,
      code: -32011,
    }),
  );
  telemetry.consume(
    e({
      type: 'run.finished',
      outcome: 'model_error',
      reason: `gave up on ${SECRET}`,
      usage,
      cost_usd: 0,
      turns: 1,
    }),
  );
  // A stray event of the finished run opens nothing.
  telemetry.consume(e({ type: 'model.delta', kind: 'text', text: 'late' }));
  telemetry.consume(e({ type: 'tool.started', call_id: 'c2', name: 'x/do' }));
  await telemetry.close();
  const records = await spans();
  expect(records.map((r) => r.name).sort()).toEqual(['execute_tool x/do', 'pincer.run']);
  const tool = records.find((r) => r.name === 'execute_tool x/do') as SpanRecord;
  expect(tool).toMatchObject({ status: 'error', parent_span_id: runSpanId('run_a') });
  expect(tool.attributes).toMatchObject({
    'pincer.tool.status': 'denied',
    'pincer.policy.decision': 'deny',
    'pincer.error.code': -32011,
    'pincer.tool.result': 'denied for [REDACTED:known]',
  });
  expect(tool.attributes['pincer.tool.arguments']).toBeUndefined();
  const run = records.find((r) => r.name === 'pincer.run') as SpanRecord;
  expect(run).toMatchObject({ status: 'error', status_message: 'gave up on [REDACTED:known]' });
  expect(JSON.stringify(records)).not.toContain(SECRET);
  expect(telemetry.metrics()).toMatchObject({
    runs: { model_error: 1 },
    tool_calls: { denied: 1 },
  });
});

it('a resumed run is a span under the run span; a run cut off by close ends marked unfinished', async ({
  dataDir,
}) => {
  const { telemetry, spans } = await open(dataDir);
  const e = stream('run_b');
  telemetry.consume(e({ type: 'run.started', goal: 'g', resumed: true }));
  telemetry.consume(e({ type: 'tool.started', call_id: 'c1', name: 'x/do' }));
  await telemetry.close();
  const records = await spans();
  const run = records.find((r) => r.name === 'pincer.run resumed') as SpanRecord;
  expect(run.parent_span_id).toBe(runSpanId('run_b'));
  expect(run.span_id).not.toBe(runSpanId('run_b'));
  expect(run.attributes).toMatchObject({
    'pincer.run.resumed': true,
    'pincer.run.unfinished': true,
  });
  const tool = records.find((r) => r.name === 'execute_tool x/do') as SpanRecord;
  expect(tool.parent_span_id).toBe(run.span_id);
  // Nothing more is taken once closed.
  telemetry.consume(e({ type: 'run.started', goal: 'g', resumed: false }));
  expect(telemetry.metrics().runs).toEqual({});
});
