/**
 * World models consulted before acting (CKP 0.3.0 §5.7): before a call with side effects runs,
 * each agent-wide WorldModel of the manifest predicts what it will change, its risk and its cost.
 * The prediction travels with the policy's decision, so the approval card, the terminal and the
 * CKP refusal show it. It can only make the decision stricter: with `planning.fallback`
 * `conservative` or `escalate`, a predicted high risk, or no prediction at all, turns an allowed
 * call into one a person approves; nothing a prediction says ever allows a call.
 */
import type { ToolCall } from '../../../shared/messages.js';
import type { Primitive } from '../ckp/index.js';
import type { PolicyContext, PolicyDecision, PolicyHook, Prediction } from '../policy/index.js';
import { type Predictor, unavailable } from './predictors.js';

export interface Planner {
  worldModel: Primitive<'WorldModel'>;
  predict: Predictor;
}

export interface GuardOptions {
  /** How long one prediction may take before it counts as none. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const ORDER: Record<Prediction['risk'], number> = { unknown: 0, low: 1, medium: 2, high: 3 };

export function worldModelGuarded(
  inner: PolicyHook,
  planners: readonly Planner[],
  options: GuardOptions = {},
): PolicyHook {
  // Task-scoped world models belong to the skill that names them, not to every call.
  const consulted = planners.filter((p) => p.worldModel.spec.scope === 'agent-wide');
  if (consulted.length === 0) return inner;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return {
    async decide(call: ToolCall, context: PolicyContext): Promise<PolicyDecision> {
      const decision = await inner.decide(call, context);
      if (decision.action === 'deny' || context.readOnly) return decision;
      const predictions = await Promise.all(
        consulted.map(async (planner) => ({
          planner,
          prediction: await within(planner, call, context, timeoutMs),
        })),
      );
      const worst = predictions.reduce((a, b) =>
        weight(b.prediction) > weight(a.prediction) ? b : a,
      );
      const { planner, prediction } = worst;
      const fallback = planner.worldModel.spec.planning?.fallback;
      const cautious = fallback === 'conservative' || fallback === 'escalate';
      if (
        decision.action === 'allow' &&
        cautious &&
        (prediction.risk === 'high' || prediction.unavailable)
      ) {
        return {
          action: 'ask',
          reason: prediction.unavailable
            ? `the world model "${planner.worldModel.name}" could not predict this call (${prediction.unavailable})`
            : `the world model "${planner.worldModel.name}" predicts high risk: ${prediction.summary}`,
          rule: `world-model/${planner.worldModel.name}`,
          ...(decision.grant ? { grant: decision.grant } : {}),
          defaultIfTimeout: 'deny',
          sessionApprovable: false,
          prediction,
        };
      }
      return { ...decision, prediction };
    },
  };
}

/** A failed prediction outranks every answer: it is what a cautious fallback acts on. */
function weight(prediction: Prediction): number {
  return prediction.unavailable ? 4 : ORDER[prediction.risk];
}

async function within(
  planner: Planner,
  call: ToolCall,
  context: PolicyContext,
  timeoutMs: number,
): Promise<Prediction> {
  const name = planner.worldModel.name;
  const signal = AbortSignal.timeout(timeoutMs);
  let retries = planner.worldModel.spec.planning?.fallback === 'retry' ? 1 : 0;
  for (;;) {
    // A backend that ignores its signal still cannot hold the call: the timeout wins the race.
    const gaveUp = new Promise<never>((_, reject) => {
      if (signal.aborted) reject(signal.reason);
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
    const prediction = await Promise.race([planner.predict(call, context, signal), gaveUp]).catch(
      (error: unknown) =>
        unavailable(
          name,
          signal.aborted
            ? `no answer within ${Math.round(timeoutMs / 1000)} s`
            : error instanceof Error
              ? error.message
              : String(error),
        ),
    );
    if (!prediction.unavailable || retries-- <= 0 || signal.aborted) return prediction;
  }
}
