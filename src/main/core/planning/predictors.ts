/**
 * The backends a WorldModel names (CKP 0.3.0 §5.7), each turned into one question: what will this
 * tool call change? A `tool` backend is the manifest's own simulator, run as a call of its own
 * under the same policy; a `provider` backend is a model asked for a bounded JSON prediction; a
 * `custom` backend is not one Pincer can run, so it predicts nothing and says so.
 */
import type { ToolCall } from '../../../shared/messages.js';
import type { WorldModelSpec } from '../ckp/index.js';
import type { ModelAccess } from '../models/index.js';
import type { PolicyContext, Prediction } from '../policy/index.js';

/** What one backend answers: a prediction, or why there is none. */
export type Predictor = (
  call: ToolCall,
  context: PolicyContext,
  signal: AbortSignal,
) => Promise<Prediction>;

/**
 * Runs the simulator tool with the call to predict, under the same policy as any call (a refusal
 * is an error outcome); its text is the prediction.
 */
export type SimulatorRun = (
  simulator: string,
  input: Record<string, unknown>,
  context: PolicyContext,
  signal: AbortSignal,
) => Promise<{ content: string; isError?: boolean }>;

const SUMMARY_CHARS = 400;
const RISKS = ['low', 'medium', 'high'] as const;

export function toolPredictor(name: string, spec: WorldModelSpec, run: SimulatorRun): Predictor {
  return async (call, context, signal) => {
    const outcome = await run(
      spec.backend.ref,
      { tool: call.name, arguments: call.input, predicts: predicted(spec) },
      context,
      signal,
    );
    if (outcome.isError) return unavailable(name, `its simulator failed: ${clip(outcome.content)}`);
    return readPrediction(name, spec, outcome.content);
  };
}

const PROVIDER_SYSTEM = [
  'You predict the consequences of one tool call before it runs. You do not run it.',
  'Answer with one JSON object and nothing else:',
  '{"state": "what the call will change", "observation": "what it will show",',
  ' "risk": "low" | "medium" | "high", "cost": "what it will cost"}.',
  'High risk: it deletes or overwrites data, spends money, sends messages, or cannot be undone.',
].join('\n');

export function providerPredictor(
  name: string,
  spec: WorldModelSpec,
  model: () => Promise<ModelAccess | undefined>,
): Predictor {
  return async (call, _context, signal) => {
    const access = await model();
    if (!access) return unavailable(name, `its provider "${spec.backend.ref}" is not available`);
    const turn = access.turn({
      system: PROVIDER_SYSTEM,
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'text',
              text: `Tool: ${call.name}\nArguments: ${JSON.stringify(call.input)}\nPredict: ${predicted(spec).join(', ')}`,
            },
          ],
        },
      ],
      // Asked in words, not with a response schema: not every provider can constrain its output,
      // and the router refuses a schema to one that cannot. The answer is parsed leniently.
      maxTokens: 256,
      temperature: 0,
      signal,
    });
    let text = '';
    for await (const event of turn.events) {
      if (event.type === 'text_delta') text += event.text;
      if (event.type === 'connection_lost')
        return unavailable(name, `its provider stopped answering: ${event.error.message}`);
    }
    return readPrediction(name, spec, text);
  };
}

export function customPredictor(name: string, spec: WorldModelSpec): Predictor {
  return async () =>
    unavailable(name, `its backend is custom ("${spec.backend.ref}"), which Pincer cannot run`);
}

/** The fields the world model declares it predicts (all four when it says nothing). */
function predicted(spec: WorldModelSpec): string[] {
  const declared = spec.predicts;
  if (!declared) return ['state', 'observation', 'risk', 'cost'];
  return (['state', 'observation', 'risk', 'cost'] as const).filter((key) => declared[key]);
}

/** A backend's text as a prediction: JSON with the declared fields, else the text as a summary. */
export function readPrediction(name: string, spec: WorldModelSpec, text: string): Prediction {
  const fields = predicted(spec);
  const json = parseObject(text);
  if (!json) {
    const summary = clip(text.trim());
    return summary
      ? { worldModel: name, summary, risk: 'unknown' }
      : unavailable(name, 'its backend answered nothing');
  }
  const say = (key: string) =>
    fields.includes(key) && typeof json[key] === 'string' && json[key].trim()
      ? (json[key] as string).trim()
      : undefined;
  const summary = [say('state'), say('observation')].filter(Boolean).join(' ');
  const cost = say('cost') ?? (typeof json.cost === 'number' ? String(json.cost) : undefined);
  return {
    worldModel: name,
    summary: clip(summary || 'no change predicted'),
    risk: fields.includes('risk') ? riskOf(json.risk) : 'unknown',
    ...(cost && fields.includes('cost') ? { cost: clip(cost, 120) } : {}),
  };
}

/** `low|medium|high`, or a 0-1 score (≥ 0.7 high, ≥ 0.3 medium); anything else is unknown. */
function riskOf(value: unknown): Prediction['risk'] {
  if (typeof value === 'string') {
    const lower = value.trim().toLowerCase();
    return (RISKS as readonly string[]).includes(lower) ? (lower as Prediction['risk']) : 'unknown';
  }
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1)
    return value >= 0.7 ? 'high' : value >= 0.3 ? 'medium' : 'low';
  return 'unknown';
}

function parseObject(text: string): Record<string, unknown> | undefined {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  try {
    const value: unknown = JSON.parse(text.slice(start, end + 1));
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

export function unavailable(name: string, why: string): Prediction {
  return { worldModel: name, summary: '', risk: 'unknown', unavailable: why };
}

function clip(text: string, max = SUMMARY_CHARS): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
