/**
 * Turns the runtime's event stream into OpenTelemetry spans: one span per run, and under it one
 * per model call, tool call and approval; a delegated run's span is a child of its parent run's.
 * Ids are derived (ids.ts), never random, so spans from several processes form one trace.
 * Prompts and model text are never exported; tool arguments and results only when the manifest
 * opts in, and then screened.
 */
import { randomBytes } from 'node:crypto';
import {
  type Attributes,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { IdGenerator } from '@opentelemetry/sdk-trace-base';
import type { RunEvent } from '../runtime/index.js';
import { otelSpanId, otelTraceId, runSpanId, sampled } from './ids.js';
import type { TelemetryMetrics } from './metrics.js';

/** What the manifest's Telemetry primitive asks for, resolved. */
export interface TelemetrySettings {
  rate: number;
  toolCalls: boolean;
  errors: boolean;
  tokens: boolean;
  cost: boolean;
  latency: boolean;
  /** Export tool arguments (screened): only when the manifest sets strip_arguments: false. */
  arguments: boolean;
  /** Export tool results (screened): only when the manifest sets strip_results: false. */
  results: boolean;
  /** A span per world-model prediction (CKP 0.3.0 events.world_model_ops). */
  worldModelOps?: boolean;
  /** A span per call a world model's fallback handed to a person (events.planning_ops). */
  planningOps?: boolean;
}

/**
 * Hands the tracer the ids of the span about to start. The SDK asks its id generator for a new
 * span's ids; setting them just before the (synchronous) startSpan makes them deterministic.
 */
export class DerivedIds implements IdGenerator {
  next?: { traceId: string; spanId: string };
  generateTraceId(): string {
    return this.next?.traceId ?? randomBytes(16).toString('hex');
  }
  generateSpanId(): string {
    return this.next?.spanId ?? randomBytes(8).toString('hex');
  }
}

interface RunState {
  span: Span;
  trace: string;
  runSpan: string;
  /** When the previous step ended: a model call starts there (the stream has no model.started). */
  lastAt: number;
  args: Map<string, unknown>;
  decisions: Map<string, string>;
  /** Calls a world model's fallback handed to a person (its rule is `world-model/NAME`). */
  fellBack: Set<string>;
  tools: Map<string, Span>;
  approvals: Map<string, Span>;
}

/** A span that no run event opens: its ids are the caller's (derived, see ids.ts). */
export interface SpanSpec {
  name: string;
  /** Pincer's trace id (not the OTel one): sampling and the OTel trace id derive from it. */
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: SpanAttributes;
}

/** Plain attribute values: what a caller outside telemetry may put on a span. */
export type SpanAttributes = Record<string, string | number | boolean>;

const ms = (at: string) => Date.parse(at);

export class RunSpans {
  private readonly runs = new Map<string, RunState>();
  /** When each live run's previous step ended, for the model-latency counter. */
  private readonly lastStep = new Map<string, number>();
  /** Spans `openSpan` started that are not yet ended. */
  private readonly detached = new Set<Span>();

  constructor(
    private readonly tracer: Tracer,
    private readonly ids: DerivedIds,
    private readonly settings: TelemetrySettings,
    private readonly screen: <T>(value: T) => T,
    private readonly metrics: TelemetryMetrics,
  ) {}

  consume(event: RunEvent): void {
    this.count(event);
    if (!sampled(event.trace_id, this.settings.rate)) return;
    if (event.type === 'model.delta') return;
    // A run's span opens at run.started; a stray event of a finished run opens nothing.
    const run =
      this.runs.get(event.run_id) ?? (event.type === 'run.started' ? this.open(event) : undefined);
    if (!run) return;
    const at = ms(event.at);
    switch (event.type) {
      case 'run.started':
        break;
      case 'model.finished': {
        const latency = Math.max(0, at - run.lastAt);
        const input = event.usage.input_tokens;
        const output = event.usage.output_tokens;
        const attributes: Attributes = {
          'gen_ai.operation.name': 'chat',
          'gen_ai.response.model': event.model,
          'pincer.model.stop_reason': event.stop_reason,
          ...this.usage(input, output, event.cost_usd),
          ...(this.settings.latency ? { 'pincer.latency_ms': latency } : {}),
          ...(event.fallbacks?.length ? { 'pincer.model.fallbacks': event.fallbacks.length } : {}),
        };
        const span = this.start(
          `chat ${event.model}`,
          run,
          otelSpanId(`model:${event.run_id}:${event.seq}`),
          run.lastAt,
          attributes,
          SpanKind.CLIENT,
        );
        span.end(at);
        break;
      }
      case 'tool.requested':
        if (this.settings.arguments) run.args.set(event.call.id, this.screen(event.call.input));
        break;
      case 'policy.decided':
        run.decisions.set(event.call_id, event.decision);
        if (event.rule?.startsWith('world-model/')) run.fellBack.add(event.call_id);
        break;
      case 'world_model.predicted': {
        const attributes = {
          'pincer.world_model': event.world_model,
          'pincer.world_model.risk': event.risk,
          ...(event.unavailable !== undefined ? { 'pincer.world_model.unavailable': true } : {}),
        };
        const escalated = run.fellBack.delete(event.call_id);
        const wanted = this.settings.worldModelOps || (this.settings.planningOps && escalated);
        if (!wanted) break;
        this.start(
          this.settings.worldModelOps ? 'world_model predict' : 'planning fallback',
          run,
          otelSpanId(`world-model:${event.run_id}:${event.call_id}`),
          at,
          { ...attributes, 'pincer.planning.asked': escalated },
        ).end(at);
        break;
      }
      case 'tool.started':
        if (this.settings.toolCalls) run.tools.set(event.call_id, this.toolSpan(run, event, at));
        break;
      case 'tool.finished': {
        if (!this.settings.toolCalls) break;
        // A refused call never started: its span covers the decision only.
        const span =
          run.tools.get(event.call_id) ?? this.toolSpan(run, event, at - event.duration_ms);
        run.tools.delete(event.call_id);
        span.setAttributes({
          'pincer.tool.status': event.status,
          ...(this.settings.latency ? { 'pincer.latency_ms': event.duration_ms } : {}),
          ...(event.code !== undefined ? { 'pincer.error.code': event.code } : {}),
          ...(event.replayed ? { 'pincer.tool.replayed': true } : {}),
          ...(this.settings.results ? { 'pincer.tool.result': this.screen(event.output) } : {}),
        });
        if (event.status !== 'ok') span.setStatus({ code: SpanStatusCode.ERROR });
        span.end(at);
        break;
      }
      case 'approval.requested':
        if (!this.settings.toolCalls) break;
        run.approvals.set(
          event.approval_id,
          this.start(
            `approval ${event.call.name}`,
            run,
            otelSpanId(`approval:${event.run_id}:${event.approval_id}`),
            at,
            { 'gen_ai.tool.name': event.call.name, 'gen_ai.tool.call.id': event.call.id },
          ),
        );
        break;
      case 'approval.resolved': {
        const span = run.approvals.get(event.approval_id);
        run.approvals.delete(event.approval_id);
        span?.setAttribute('pincer.approval.approved', event.approved);
        span?.end(at);
        break;
      }
      case 'run.finished':
        this.finish(run, event, at);
        return;
      case 'state.changed':
        break;
    }
    run.lastAt = at;
  }

  /** The counters cover every run, sampled or not; a model call's latency is since its run's last step. */
  private count(event: RunEvent): void {
    if (event.type === 'run.started') this.lastStep.set(event.run_id, ms(event.at));
    const since = this.lastStep.get(event.run_id) ?? ms(event.at);
    if (event.type === 'model.finished') {
      const { input_tokens: input, output_tokens: output } = event.usage;
      this.metrics.model({ input, output }, event.cost_usd, Math.max(0, ms(event.at) - since), {
        model: event.model,
      });
    } else if (event.type === 'tool.finished') {
      this.metrics.tool(event.status, event.duration_ms, event.name);
    } else if (event.type === 'run.finished') {
      this.metrics.run(event.outcome);
      this.lastStep.delete(event.run_id);
      return;
    }
    if (event.type !== 'model.delta') this.lastStep.set(event.run_id, ms(event.at));
  }

  /**
   * A span outside any run's events (a swarm operation, a delegation), under given ids; ended
   * by the caller (endSpan). None in an unsampled trace.
   */
  openSpan(spec: SpanSpec): Span | undefined {
    if (!sampled(spec.traceId, this.settings.rate)) return undefined;
    const span = this.startSpan(
      spec.name,
      otelTraceId(spec.traceId),
      spec.spanId,
      spec.parentSpanId,
      Date.now(),
      { 'pincer.trace_id': spec.traceId, ...spec.attributes },
      SpanKind.INTERNAL,
    );
    this.detached.add(span);
    return span;
  }

  /** Ends a span `openSpan` gave. */
  endSpan(span: Span, attributes: SpanAttributes, failed: boolean): void {
    if (!this.detached.delete(span)) return;
    span.setAttributes(attributes);
    if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }

  /** Ends every span still open (the process is closing mid-run). */
  endAll(): void {
    const now = Date.now();
    for (const span of this.detached) {
      span.setAttribute('pincer.span.unfinished', true);
      span.end(now);
    }
    this.detached.clear();
    for (const run of this.runs.values()) {
      for (const span of [...run.tools.values(), ...run.approvals.values()]) span.end(now);
      run.span.setAttribute('pincer.run.unfinished', true);
      run.span.end(now);
    }
    this.runs.clear();
    this.lastStep.clear();
  }

  private open(event: Extract<RunEvent, { type: 'run.started' }>): RunState {
    const parent = event.parent_run_id;
    const attributes: Attributes = {
      'pincer.trace_id': event.trace_id,
      'pincer.run_id': event.run_id,
      'pincer.session_id': event.session_id,
      'pincer.task_id': event.task_id,
      ...(parent ? { 'pincer.parent_run_id': parent } : {}),
      ...(event.resumed ? { 'pincer.run.resumed': true } : {}),
      ...(event.origin
        ? { 'pincer.origin.channel': event.origin.channel, 'pincer.origin.type': event.origin.type }
        : {}),
    };
    // A resumed run (another process, after a crash or restart) gets a span of its own under
    // the run's first span, so the run span id stays the one its children and workers derive.
    const runSpan = event.resumed
      ? otelSpanId(`run:${event.run_id}:resumed:${event.seq}:${event.at}`)
      : runSpanId(event.run_id);
    // A swarm worker's run hangs under the leader's delegation span its task's header named.
    const parentSpan = event.resumed
      ? runSpanId(event.run_id)
      : parent
        ? runSpanId(parent)
        : event.parent_span_id;
    const name = event.resumed
      ? 'pincer.run resumed'
      : parent
        ? 'pincer.run delegated'
        : 'pincer.run';
    const trace = otelTraceId(event.trace_id);
    const at = ms(event.at);
    const span = this.startSpan(
      name,
      trace,
      runSpan,
      parentSpan,
      at,
      attributes,
      SpanKind.INTERNAL,
    );
    const state: RunState = {
      span,
      trace,
      runSpan,
      lastAt: at,
      args: new Map(),
      decisions: new Map(),
      fellBack: new Set(),
      tools: new Map(),
      approvals: new Map(),
    };
    this.runs.set(event.run_id, state);
    return state;
  }

  private finish(run: RunState, event: Extract<RunEvent, { type: 'run.finished' }>, at: number) {
    run.span.setAttributes({
      'pincer.run.outcome': event.outcome,
      'pincer.run.turns': event.turns,
      ...this.usage(event.usage.input_tokens, event.usage.output_tokens, event.cost_usd),
      ...(event.code !== undefined ? { 'pincer.error.code': event.code } : {}),
    });
    if (event.outcome !== 'completed') {
      run.span.setStatus({
        code: SpanStatusCode.ERROR,
        ...(this.settings.errors ? { message: this.screen(event.reason) } : {}),
      });
    }
    for (const span of [...run.tools.values(), ...run.approvals.values()]) span.end(at);
    run.span.end(at);
    this.runs.delete(event.run_id);
  }

  private usage(input: number, output: number, cost: number): Attributes {
    return {
      ...(this.settings.tokens
        ? { 'gen_ai.usage.input_tokens': input, 'gen_ai.usage.output_tokens': output }
        : {}),
      ...(this.settings.cost ? { 'pincer.cost_usd': cost } : {}),
    };
  }

  private toolSpan(
    run: RunState,
    event: { call_id: string; name: string; run_id: string },
    at: number,
  ) {
    const args = run.args.get(event.call_id);
    run.args.delete(event.call_id);
    const decision = run.decisions.get(event.call_id);
    return this.start(
      `execute_tool ${event.name}`,
      run,
      otelSpanId(`tool:${event.run_id}:${event.call_id}`),
      at,
      {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': event.name,
        'gen_ai.tool.call.id': event.call_id,
        ...(decision ? { 'pincer.policy.decision': decision } : {}),
        ...(args !== undefined ? { 'pincer.tool.arguments': JSON.stringify(args) } : {}),
      },
    );
  }

  private start(
    name: string,
    run: RunState,
    spanId: string,
    at: number,
    attributes: Attributes,
    kind: SpanKind = SpanKind.INTERNAL,
  ): Span {
    return this.startSpan(name, run.trace, spanId, run.runSpan, at, attributes, kind);
  }

  private startSpan(
    name: string,
    traceId: string,
    spanId: string,
    parentSpanId: string | undefined,
    at: number,
    attributes: Attributes,
    kind: SpanKind,
  ): Span {
    const context = parentSpanId
      ? trace.setSpanContext(ROOT_CONTEXT, {
          traceId,
          spanId: parentSpanId,
          traceFlags: TraceFlags.SAMPLED,
          isRemote: true,
        })
      : ROOT_CONTEXT;
    this.ids.next = { traceId, spanId };
    try {
      return this.tracer.startSpan(name, { kind, startTime: at, attributes }, context);
    } finally {
      this.ids.next = undefined;
    }
  }
}
