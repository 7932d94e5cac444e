/**
 * The model router: picks which registered model serves a request, in an order given by a
 * strategy, after filtering out models that cannot serve it; enforces per-provider limits before
 * anything is sent; retries what is worth retrying; falls back while the consumer has seen
 * nothing; accounts usage and cost when a reply finishes.
 */
import type { ContentBlock, Usage } from '../../../shared/messages.js';
import { assertValidDescriptor, suggestModel } from './catalog.js';
import { CostLedger, costOf } from './cost.js';
import { ModelError } from './errors.js';
import type { ModelId } from './ids.js';
import {
  estimateInputTokens,
  LimitTracker,
  type ProviderLimits,
  type Reservation,
} from './limits.js';
import {
  abortable,
  cancelled,
  DEFAULT_RETRY,
  type RetryPolicy,
  sleep as realSleep,
  retryDelay,
  type Sleep,
  toModelError,
} from './retry.js';
import type {
  FinishEvent,
  ModelDescriptor,
  ModelEvent,
  ModelProvider,
  ModelRequest,
} from './types.js';

export type RoutingStrategy = 'quality' | 'speed' | 'cost' | 'balanced' | 'fallback' | 'cascade';
export const STRATEGIES: readonly RoutingStrategy[] = [
  'quality',
  'speed',
  'cost',
  'balanced',
  'fallback',
  'cascade',
];

/** Capabilities asked for explicitly, on top of those the request itself implies. */
export interface Requirements {
  tools?: boolean;
  vision?: boolean;
  json?: boolean;
  reasoning?: boolean;
}

export interface RegisterOptions {
  /** Limits of the descriptor's provider (merged over limits set by earlier registrations). */
  limits?: ProviderLimits;
  retry?: RetryPolicy;
  /** Models tried after this one, in this order, by the `fallback` strategy. */
  fallback?: ModelId[];
}

export interface RouteOptions {
  strategy: RoutingStrategy;
  /** The primary model; required by `fallback`, refused by the other strategies. */
  model?: ModelId;
  requires?: Requirements;
  /** Restricts the pool of the ranking strategies to these models. */
  models?: ModelId[];
  /**
   * `cascade` only: judges a finished reply; a rejected one escalates to the next model. With a
   * predicate the cascade holds each reply back until it is accepted (see `stream`).
   */
  accept?: (finish: FinishEvent) => boolean;
  /** Defaults to `request.signal`. */
  signal?: AbortSignal;
}

export interface RouteStep {
  model: ModelId;
  /** Set when the step will not be called: its reason is recorded as a failure cause. */
  skip?: ModelError;
  /** Estimated USD of this request on this model (input estimate + expected output). */
  estimatedCostUsd: number;
  /** The balanced score, for `balanced`. */
  score?: number;
}

export interface RoutePlan {
  strategy: RoutingStrategy;
  /** In the order they will be tried. */
  steps: RouteStep[];
  /** Models of a ranking strategy's pool left out because they cannot serve the request. */
  excluded: Array<{ model: ModelId; reason: ModelError }>;
  estimatedInputTokens: number;
}

export type AttemptOutcome =
  | 'served'
  /** Content had reached the consumer when the stream broke: ended with `connection_lost`. */
  | 'interrupted'
  | 'failed'
  /** Not called: a capability it lacks, or not registered (fallback entries only). */
  | 'skipped'
  /** Refused by a configured limit before anything was sent. */
  | 'quota'
  /** Finished, but the cascade's `accept` rejected the reply. */
  | 'not_accepted';

export interface AttemptRecord {
  model: ModelId;
  /** 1-based per model; 0 for a skipped step. */
  attempt: number;
  outcome: AttemptOutcome;
  error?: ModelError;
  /** The backoff waited after this attempt before the next one. */
  delayMs?: number;
}

/** What happened on one routed call; filled in while the stream runs. */
export interface RouteReport {
  plan: RoutePlan;
  attempts: AttemptRecord[];
  /** The model whose reply the consumer got (also set when it ended with connection_lost). */
  served?: ModelId;
  /** One per failed candidate, in the order tried: the candidate's last failure. */
  causes: ModelError[];
  costUsd: number;
}

export type RoutedStream = AsyncGenerator<ModelEvent, void, undefined> & {
  readonly report: RouteReport;
};

export interface RouterOptions {
  limits?: LimitTracker;
  ledger?: CostLedger;
  /** Injected in tests: backoff jitter and waits. */
  random?: () => number;
  sleep?: Sleep;
}

interface Registration {
  descriptor: ModelDescriptor;
  provider: ModelProvider;
  retry: RetryPolicy;
  fallback: ModelId[];
  order: number;
}

/** Output tokens assumed by cost ranking when the request sets no `maxTokens`. */
export const EXPECTED_OUTPUT_TOKENS = 1_000;

/**
 * The balanced strategy's weights: quality matters most (a wrong answer costs a retry by the
 * user), speed and price share the rest. Price is scored on a log scale across the pool, since
 * catalog prices span three orders of magnitude and a linear scale would rate everything but
 * the dearest model as equally cheap.
 */
export const BALANCED_WEIGHTS = Object.freeze({ quality: 0.5, speed: 0.25, cost: 0.25 });
/** Keeps log() finite for free (local) models: one micro-dollar. */
const COST_EPSILON = 1e-6;

export class ModelRouter {
  readonly limits: LimitTracker;
  readonly ledger: CostLedger;
  /** The report of the most recently started stream. */
  lastRoute: RouteReport | undefined;
  private readonly registry = new Map<ModelId, Registration>();
  private readonly random: () => number;
  private readonly sleep: Sleep;

  constructor(options: RouterOptions = {}) {
    this.limits = options.limits ?? new LimitTracker();
    this.ledger = options.ledger ?? new CostLedger();
    this.random = options.random ?? Math.random;
    this.sleep = options.sleep ?? realSleep;
  }

  register(
    descriptor: ModelDescriptor,
    provider: ModelProvider,
    options: RegisterOptions = {},
  ): void {
    assertValidDescriptor(descriptor);
    const fail = (message: string): never => {
      throw new ModelError('invalid_request', message, { provider: descriptor.provider });
    };
    if (this.registry.has(descriptor.id)) fail(`model "${descriptor.id}" is already registered`);
    if (provider.id !== descriptor.provider) {
      fail(`model "${descriptor.id}" given provider "${provider.id}"`);
    }
    if (provider.protocol !== descriptor.protocol) {
      fail(
        `model "${descriptor.id}" speaks ${descriptor.protocol}, its provider ${provider.protocol}`,
      );
    }
    const fallback = options.fallback ?? [];
    if (fallback.includes(descriptor.id)) fail(`model "${descriptor.id}" falls back to itself`);
    if (new Set(fallback).size !== fallback.length) {
      fail(`the fallback chain of "${descriptor.id}" names a model twice`);
    }
    const retry = { ...DEFAULT_RETRY, ...options.retry };
    if (!(Number.isInteger(retry.maxAttempts) && retry.maxAttempts >= 1)) {
      fail('retry.maxAttempts must be an integer >= 1');
    }
    if (options.limits) this.limits.setLimits(descriptor.provider, options.limits);
    this.registry.set(descriptor.id, {
      descriptor,
      provider,
      retry,
      fallback: [...fallback],
      order: this.registry.size,
    });
  }

  unregister(id: ModelId): boolean {
    return this.registry.delete(id);
  }

  models(): ModelDescriptor[] {
    return [...this.registry.values()].map((registration) => registration.descriptor);
  }

  /** The order `stream` would try models in, without calling any. */
  route(request: ModelRequest, options: RouteOptions): RoutePlan {
    const estimatedInputTokens = estimateInputTokens(request);
    const cost = (descriptor: ModelDescriptor): number =>
      costOf(descriptor.pricing, {
        inputTokens: estimatedInputTokens,
        outputTokens: request.maxTokens ?? EXPECTED_OUTPUT_TOKENS,
      });
    const step = (descriptor: ModelDescriptor, skip?: ModelError): RouteStep =>
      skip
        ? { model: descriptor.id, skip, estimatedCostUsd: cost(descriptor) }
        : { model: descriptor.id, estimatedCostUsd: cost(descriptor) };
    const unfit = (descriptor: ModelDescriptor): ModelError | undefined => {
      const reasons = unmetRequirements(
        descriptor,
        request,
        estimatedInputTokens,
        options.requires,
      );
      return reasons.length === 0
        ? undefined
        : new ModelError(
            'invalid_request',
            `${descriptor.id} cannot serve this request: ${reasons.join('; ')}`,
            {
              provider: descriptor.provider,
            },
          );
    };

    if (options.strategy === 'fallback') {
      const primary = this.registration(options.model, 'the fallback strategy needs a model');
      // CKP §5.2: every entry of the chain is accounted for, in order; one that cannot be
      // called becomes a recorded failure rather than silently vanishing from the chain.
      const steps = [primary.descriptor.id, ...primary.fallback].map((id): RouteStep => {
        const registration = this.registry.get(id);
        if (!registration) {
          return {
            model: id,
            skip: this.unknown(id, 'fallback entry is not registered'),
            estimatedCostUsd: 0,
          };
        }
        return step(registration.descriptor, unfit(registration.descriptor));
      });
      return { strategy: 'fallback', steps, excluded: [], estimatedInputTokens };
    }
    if (options.model !== undefined) {
      throw new ModelError(
        'invalid_request',
        `the ${options.strategy} strategy ranks the pool itself; pass "models" to restrict it, or use "fallback" to name a model`,
      );
    }
    const pool = options.models?.map((id) => this.registration(id, 'a pool model is needed')) ?? [
      ...this.registry.values(),
    ];
    const excluded: RoutePlan['excluded'] = [];
    const eligible: Registration[] = [];
    for (const registration of pool) {
      const reason = unfit(registration.descriptor);
      if (reason) excluded.push({ model: registration.descriptor.id, reason });
      else eligible.push(registration);
    }
    const steps = rank(options.strategy, eligible, cost).map(({ registration, score }) => {
      const entry = step(registration.descriptor);
      if (score !== undefined) entry.score = score;
      return entry;
    });
    return { strategy: options.strategy, steps, excluded, estimatedInputTokens };
  }

  /**
   * Streams the reply of the first model in the plan that serves it. Falls back to the next
   * model only while nothing has reached the consumer: once a content delta went out, a later
   * failure ends the stream with `connection_lost`, because replaying the request on another
   * model would emit a second, different beginning after the one already shown (duplicated or
   * contradictory output the consumer cannot take back). `start` and `usage` events are held
   * until the first content event so a stream that breaks before any content still falls back.
   *
   * A cascade with `accept` holds each candidate's whole reply until `accept` judges its finish
   * event, for the same reason: a rejected reply must never reach the consumer.
   *
   * When every candidate fails it throws `all_failed` with each candidate's failure in order;
   * when every failure was a configured limit, `quota_exceeded` (CKP -32021) with those causes.
   */
  stream(request: ModelRequest, options: RouteOptions): RoutedStream {
    const plan = this.route(request, options);
    const report: RouteReport = { plan, attempts: [], causes: [], costUsd: 0 };
    this.lastRoute = report;
    const generator = this.run(request, options, report);
    return Object.assign(generator, { report });
  }

  private async *run(
    request: ModelRequest,
    options: RouteOptions,
    report: RouteReport,
  ): AsyncGenerator<ModelEvent, void, undefined> {
    const signal = options.signal ?? request.signal;
    const judge = options.strategy === 'cascade' ? options.accept : undefined;
    const routed = signal && signal !== request.signal ? { ...request, signal } : request;
    const estimate = report.plan.estimatedInputTokens + (request.maxTokens ?? 0);
    if (report.plan.steps.length === 0) {
      for (const { reason } of report.plan.excluded) report.causes.push(reason);
    }
    for (const step of report.plan.steps) {
      if (step.skip) {
        report.causes.push(step.skip);
        report.attempts.push({
          model: step.model,
          attempt: 0,
          outcome: 'skipped',
          error: step.skip,
        });
        continue;
      }
      const registration = this.registry.get(step.model);
      if (!registration) {
        const error = this.unknown(step.model, 'unregistered while routing');
        report.causes.push(error);
        report.attempts.push({ model: step.model, attempt: 0, outcome: 'skipped', error });
        continue;
      }
      for (let attempt = 1; ; attempt++) {
        if (signal?.aborted) throw cancelled(signal);
        let reservation: Reservation;
        try {
          // Every attempt, retries included, is a request the provider counts against its limits.
          reservation = this.limits.reserve(registration.descriptor.provider, estimate);
        } catch (thrown) {
          const error = toModelError(thrown);
          report.causes.push(error);
          report.attempts.push({ model: step.model, attempt, outcome: 'quota', error });
          break;
        }
        const record: AttemptRecord = { model: step.model, attempt, outcome: 'failed' };
        report.attempts.push(record);
        const result = yield* this.attempt(registration, routed, reservation, judge, report);
        record.outcome = result.outcome;
        if (result.error) record.error = result.error;
        if (result.outcome === 'served' || result.outcome === 'interrupted') {
          report.served = step.model;
          return;
        }
        const error = result.error ?? new ModelError('bad_response', 'attempt failed');
        if (error.code === 'cancelled') throw error;
        if (signal?.aborted) throw cancelled(signal);
        if (
          result.outcome === 'failed' &&
          error.retryable &&
          attempt < registration.retry.maxAttempts
        ) {
          const delayMs = retryDelay(registration.retry, attempt, error, this.random);
          record.delayMs = delayMs;
          await abortable(this.sleep(delayMs, signal), signal);
          continue;
        }
        report.causes.push(error);
        break;
      }
    }
    throw exhausted(report);
  }

  /**
   * One call of one model. Returns how it ended; yields only what the consumer may see (see
   * `stream` for when events are held back).
   */
  private async *attempt(
    registration: Registration,
    request: ModelRequest,
    reservation: Reservation,
    judge: ((finish: FinishEvent) => boolean) | undefined,
    report: RouteReport,
  ): AsyncGenerator<ModelEvent, { outcome: AttemptOutcome; error?: ModelError }, undefined> {
    const { descriptor, provider } = registration;
    const held: ModelEvent[] = [];
    const partial = new PartialText();
    let released = false;
    let lastUsage: Usage | undefined;
    let iterator: AsyncIterator<ModelEvent> | undefined;
    let finished = false;
    const account = (usage: Usage): void => {
      reservation.settle(usage);
      report.costUsd += this.ledger.record(descriptor, usage);
    };
    // Tokens were spent on a reply that broke off: charge what was reported, else the estimate.
    const chargeBroken = (): void => {
      if (lastUsage) account(lastUsage);
      else reservation.settle({ inputTokens: reservation.estimatedTokens, outputTokens: 0 });
    };
    try {
      try {
        iterator = provider.stream(descriptor.apiModel, request)[Symbol.asyncIterator]();
      } catch (thrown) {
        // A provider that fails while setting up (before returning a stream) is a plain failure.
        finished = true;
        return { outcome: 'failed', error: toModelError(thrown) };
      }
      for (;;) {
        let next: IteratorResult<ModelEvent>;
        try {
          next = await iterator.next();
        } catch (thrown) {
          finished = true;
          const error = toModelError(thrown);
          if (!released) return { outcome: 'failed', error };
          // A provider should end with connection_lost itself; one that throws gets it made.
          chargeBroken();
          yield { type: 'connection_lost', error, partial: partial.message() };
          return { outcome: 'interrupted', error };
        }
        if (next.done) {
          finished = true;
          const error = new ModelError('truncated', 'the stream ended without a finish event', {
            provider: descriptor.provider,
          });
          if (!released) return { outcome: 'failed', error };
          chargeBroken();
          yield { type: 'connection_lost', error, partial: partial.message() };
          return { outcome: 'interrupted', error };
        }
        const event = next.value;
        switch (event.type) {
          case 'connection_lost':
            if (!released) {
              if (event.partial.content.length > 0) chargeBroken();
              return { outcome: 'failed', error: event.error };
            }
            chargeBroken();
            yield event;
            return { outcome: 'interrupted', error: event.error };
          case 'finish': {
            account(event.usage);
            if (judge && !judge(event)) {
              return {
                outcome: 'not_accepted',
                error: new ModelError('rejected', 'the cascade did not accept the reply', {
                  provider: descriptor.provider,
                }),
              };
            }
            released = true;
            yield* held.splice(0);
            yield event;
            return { outcome: 'served' };
          }
          case 'start':
          case 'usage':
            if (event.type === 'usage') lastUsage = event.usage;
            if (released) yield event;
            else held.push(event);
            break;
          default:
            partial.add(event);
            if (judge) {
              held.push(event);
            } else {
              released = true;
              yield* held.splice(0);
              yield event;
            }
        }
      }
    } finally {
      // Frees a reservation nothing settled (a no-op after settle), and closes the provider's
      // stream (and its socket) when we leave before it ended: the consumer stopped iterating,
      // or the reply was decided at its finish event.
      reservation.release();
      if (!finished) {
        try {
          await iterator?.return?.();
        } catch {
          // Closing a broken stream may fail again; the outcome is already decided.
        }
      }
    }
  }

  private registration(id: ModelId | undefined, missing: string): Registration {
    if (id === undefined) throw new ModelError('invalid_request', missing);
    const registration = this.registry.get(id);
    if (!registration) throw this.unknown(id, 'not registered with the router');
    return registration;
  }

  private unknown(id: ModelId, why: string): ModelError {
    const suggestion = suggestModel(id, this.models());
    const hint = suggestion ? `; did you mean "${suggestion}"?` : '';
    return new ModelError('unknown_model', `model "${id}" ${why}${hint}`);
  }
}

/** Why a model cannot serve a request (empty when it can). */
export function unmetRequirements(
  descriptor: ModelDescriptor,
  request: ModelRequest,
  estimatedInputTokens = estimateInputTokens(request),
  requires: Requirements = {},
): string[] {
  const { capabilities } = descriptor;
  const reasons: string[] = [];
  const usesTools = (request.tools?.length ?? 0) > 0 && request.toolChoice !== 'none';
  if ((usesTools || requires.tools) && !capabilities.tools) reasons.push('no tool calling');
  if ((hasImage(request) || requires.vision) && !capabilities.vision) reasons.push('no vision');
  if ((request.jsonSchema || requires.json) && !capabilities.json) {
    reasons.push('no structured JSON output');
  }
  if (requires.reasoning && !capabilities.reasoning) reasons.push('no reasoning');
  const output = request.maxTokens ?? 0;
  if (output > capabilities.maxOutputTokens) {
    reasons.push(`maxTokens ${output} exceeds its output limit ${capabilities.maxOutputTokens}`);
  }
  if (estimatedInputTokens + output > capabilities.contextWindow) {
    reasons.push(
      `an estimated ${estimatedInputTokens + output} tokens exceed its context window ${capabilities.contextWindow}`,
    );
  }
  return reasons;
}

function hasImage(request: ModelRequest): boolean {
  const image = (block: ContentBlock): boolean =>
    block.type === 'image' ||
    (block.type === 'tool_result' &&
      typeof block.content !== 'string' &&
      block.content.some(image));
  return request.messages.some((message) => message.content.some(image));
}

function rank(
  strategy: Exclude<RoutingStrategy, 'fallback'>,
  eligible: Registration[],
  cost: (descriptor: ModelDescriptor) => number,
): Array<{ registration: Registration; score?: number }> {
  // Sorting is stable, and registration order breaks any remaining tie.
  const byOrder = [...eligible].sort((a, b) => a.order - b.order);
  switch (strategy) {
    case 'quality':
      return byOrder
        .sort((a, b) => b.descriptor.quality - a.descriptor.quality)
        .map((registration) => ({ registration }));
    case 'speed':
      return byOrder
        .sort((a, b) => b.descriptor.speed - a.descriptor.speed)
        .map((registration) => ({ registration }));
    case 'cost':
    case 'cascade':
      // Equal prices (two free local models) go better model first.
      return byOrder
        .sort(
          (a, b) =>
            cost(a.descriptor) - cost(b.descriptor) || b.descriptor.quality - a.descriptor.quality,
        )
        .map((registration) => ({ registration }));
    case 'balanced': {
      const logs = byOrder.map((r) => Math.log(cost(r.descriptor) + COST_EPSILON));
      const low = Math.min(...logs);
      const span = Math.max(...logs) - low;
      return byOrder
        .map((registration, index) => {
          const costScore = span === 0 ? 1 : 1 - ((logs[index] ?? low) - low) / span;
          const { quality, speed } = registration.descriptor;
          const score =
            BALANCED_WEIGHTS.quality * quality +
            BALANCED_WEIGHTS.speed * speed +
            BALANCED_WEIGHTS.cost * costScore;
          return { registration, score };
        })
        .sort((a, b) => b.score - a.score);
    }
  }
}

function exhausted(report: RouteReport): ModelError {
  const { causes } = report;
  if (causes.length === 0) {
    return new ModelError('all_failed', 'no registered model can serve this request');
  }
  const summary = causes.map((cause) => cause.message).join(' | ');
  if (causes.every((cause) => cause.code === 'quota_exceeded')) {
    return new ModelError('quota_exceeded', `every candidate is over a limit: ${summary}`, {
      causes,
    });
  }
  return new ModelError('all_failed', `every candidate failed: ${summary}`, { causes });
}

/** Text and tool calls seen so far, for a `connection_lost` the router has to make itself. */
class PartialText {
  private readonly chunks: string[] = [];
  private readonly tools = new Map<number, { id: string; name: string; args: string[] }>();

  add(event: ModelEvent): void {
    if (event.type === 'text_delta') this.chunks.push(event.text);
    else if (event.type === 'tool_call_start') {
      this.tools.set(event.index, { id: event.id, name: event.name, args: [] });
    } else if (event.type === 'tool_call_delta') {
      this.tools.get(event.index)?.args.push(event.argumentsDelta);
    }
  }

  message(): { role: 'assistant'; content: ContentBlock[] } {
    const content: ContentBlock[] = [];
    const text = this.chunks.join('');
    if (text) content.push({ type: 'text', text });
    // Only tool calls whose arguments arrived whole are kept: a half call cannot be run.
    for (const tool of this.tools.values()) {
      try {
        const input: unknown = JSON.parse(tool.args.join('') || '{}');
        if (input && typeof input === 'object' && !Array.isArray(input)) {
          content.push({
            type: 'tool_use',
            id: tool.id,
            name: tool.name,
            input: input as Record<string, unknown>,
          });
        }
      } catch {
        // Incomplete JSON: dropped.
      }
    }
    return { role: 'assistant', content };
  }
}
