/**
 * Replies that cannot break their schema. The local grammar (local/grammar.ts) decides how:
 * a `response_format` schema becomes Pincer's own grammar (ranges, bounded digits, valid
 * UTF-8); tool parameters are narrowed to what node-llama-cpp's function grammar enforces
 * exactly.
 * Either way every reply is then checked against the caller's ORIGINAL schema with ajv, and
 * against broken UTF-8 (U+FFFD), and sampled again within a small budget when it fails: what
 * the grammar cannot express (a number's exponent in a tool call, uniqueItems, multipleOf,
 * ...) is caught here. After the budget the request fails with a clear error; an invalid reply
 * is never answered as a valid one. A reply cut by max_tokens is answered as cut (finish
 * `length`, Responses `incomplete`), never as a completed one.
 */
import type { ValidateFunction } from 'ajv';
import { grammarToolDefs, replyGrammar } from '../local/index.js';
import type { ChatGeneration, GenerateResult, ModelBackend } from './backend.js';
import { ApiError } from './errors.js';

/** Generations per request at most when replies fail their schema. */
export const STRUCTURED_ATTEMPTS = 4;

/** What a reply must satisfy: the caller's own schemas, before any narrowing. */
export interface ReplyContract {
  /** The `response_format` / `text.format` schema of the reply text. */
  schema?: Record<string, unknown>;
  /** Each offered tool's parameters schema, by name. */
  tools: Map<string, Record<string, unknown> | undefined>;
  /** tool_choice required or named: the reply must be a call. */
  callRequired: boolean;
}

export interface ConstrainedGeneration {
  generation: ChatGeneration;
  contract: ReplyContract;
}

/**
 * The generation the engine runs (grammar for the reply, narrowed tool schemas) and the
 * contract its reply is checked against. Throws a 400 for a schema no reply can satisfy.
 */
export function constrain(request: ChatGeneration): ConstrainedGeneration {
  const tools = request.toolChoice === 'none' ? [] : (request.tools ?? []);
  const contract: ReplyContract = {
    schema: request.jsonSchema,
    tools: new Map(tools.map((tool) => [tool.name, tool.parameters])),
    callRequired: request.toolChoice === 'required' && tools.length > 0,
  };
  // A required call's own syntax (tags, name, braces) is not the caller's output budget: the
  // limit applies to the arguments, so a call that fits is not cut by its scaffolding.
  const maxTokens =
    contract.callRequired && request.maxTokens !== undefined
      ? request.maxTokens + callScaffoldTokens(tools.map((tool) => tool.name))
      : request.maxTokens;
  const generation: ChatGeneration = {
    ...request,
    jsonSchema: undefined,
    gbnf: request.jsonSchema ? replyGrammar(request.jsonSchema).gbnf : undefined,
    tools: request.tools && grammarToolDefs(request.tools),
    // Checked here against the caller's schema, which is stricter than node-llama-cpp's re-check.
    argumentsCheckedBy: 'caller',
    maxTokens,
  };
  return { generation, contract };
}

/**
 * Tokens at most of a call's fixed text around its arguments: at most one token per byte in
 * a byte-level vocabulary, of the longest form chat formats use (Hermes-style tags here).
 */
export function callScaffoldTokens(names: string[]): number {
  const longest = names.reduce((a, b) => (Buffer.byteLength(b) > Buffer.byteLength(a) ? b : a), '');
  return Buffer.byteLength(`\n<tool_call>\n{"name": "${longest}", "arguments": }\n</tool_call>\n`);
}

/**
 * Runs the generation until its reply meets the contract, at most STRUCTURED_ATTEMPTS times
 * (a seeded request moves its seed along, so it stays reproducible). Text is passed to
 * `onText` only once the reply that carries it was accepted.
 */
export async function generateChecked(
  backend: ModelBackend,
  model: string,
  constrained: ConstrainedGeneration,
  options: { signal?: AbortSignal; onText?: (text: string) => void } = {},
): Promise<GenerateResult> {
  const { generation, contract } = constrained;
  // Free text (no schema, no tools) streams as it comes: there is nothing to check.
  if (!contract.schema && contract.tools.size === 0)
    return backend.chat(model, { ...generation, ...options });
  const checker = await Checker.for(contract);
  const seed = generation.sampling?.seed;
  let problem = '';
  let result: GenerateResult | undefined;
  for (let attempt = 0; attempt < STRUCTURED_ATTEMPTS; attempt++) {
    result = await backend.chat(model, {
      ...generation,
      sampling: { ...generation.sampling, seed: seed === undefined ? undefined : seed + attempt },
      signal: options.signal,
    });
    if (result.stopReason === 'cancelled') return result;
    // Cut by the token limit: answered as cut (finish `length`), which no client takes for a
    // complete reply; sampling again would mostly be cut again, at the same cost.
    if (result.stopReason === 'max_tokens' && (contract.schema || contract.callRequired)) {
      result = { ...result, toolCalls: [] };
      problem = '';
      break;
    }
    problem = checker.problem(result) ?? '';
    if (!problem) break;
  }
  if (problem) throw unmet(problem);
  if (result?.text) options.onText?.(result.text);
  return result as GenerateResult;
}

const unmet = (problem: string) =>
  new ApiError(
    500,
    'server_error',
    'schema_unmet',
    `The model gave no reply valid for the schema in ${STRUCTURED_ATTEMPTS} tries (last: ${problem}). ` +
      'Send the request again, or relax the schema.',
  );

/** U+FFFD is what the decoder makes of bytes that are not UTF-8: the grammar never writes one. */
const BROKEN_TEXT = '\uFFFD';

class Checker {
  private constructor(
    private readonly contract: ReplyContract,
    private readonly reply: ValidateFunction | undefined,
    private readonly tools: Map<string, ValidateFunction>,
  ) {}

  static async for(contract: ReplyContract): Promise<Checker> {
    const ajv = (await import('../tools/ajv.js')).makeAjv(false);
    const compile = (schema: Record<string, unknown>) => {
      try {
        return ajv.compile(schema);
      } catch (error) {
        throw new ApiError(
          400,
          'invalid_request_error',
          'invalid_schema',
          `The schema does not compile: ${(error as Error).message}`,
        );
      }
    };
    const tools = new Map<string, ValidateFunction>();
    for (const [name, schema] of contract.tools) if (schema) tools.set(name, compile(schema));
    return new Checker(contract, contract.schema ? compile(contract.schema) : undefined, tools);
  }

  /** Why the reply breaks the contract, or undefined when it keeps it. */
  problem(result: GenerateResult): string | undefined {
    if (this.contract.callRequired && result.toolCalls.length === 0) return 'no tool call';
    if (this.reply && result.toolCalls.length === 0) {
      if (result.text.includes(BROKEN_TEXT)) return 'the reply holds bytes that are not UTF-8';
      let value: unknown;
      try {
        value = JSON.parse(result.text);
      } catch {
        return 'the reply is not JSON';
      }
      if (!this.reply(value)) return describe(this.reply);
    }
    for (const call of result.toolCalls) {
      if (!this.contract.tools.has(call.name)) return `a call to unknown tool ${call.name}`;
      if (JSON.stringify(call.arguments).includes(BROKEN_TEXT))
        return `${call.name}: arguments hold bytes that are not UTF-8`;
      const validate = this.tools.get(call.name);
      if (validate && !validate(call.arguments)) return `${call.name}: ${describe(validate)}`;
    }
    return undefined;
  }
}

function describe(validate: ValidateFunction): string {
  const first = validate.errors?.[0];
  return first ? `${first.instancePath || '/'} ${first.message}` : 'invalid';
}
