/**
 * What a person typed in chat or on the command line: a message for the model, or tool calls
 * in the compact language to run directly (still under policy). Only text that opens like a
 * call (`@ns/tool`, `[@ns/tool`) is read as one, so "@alice, hello" stays a message; once it
 * opens like a call it must parse, and a mistake is reported with its line and column rather
 * than sent to the model.
 */
import type { ToolCallProgram } from './ast.js';
import { isToolCallSyntaxError, type ToolCallSyntaxError } from './errors.js';
import { type ParseOptions, parseToolCall } from './parser.js';
import type { ResolveContext } from './resolve.js';

export type TypedInput =
  | { kind: 'message' }
  | { kind: 'calls'; program: ToolCallProgram }
  | { kind: 'invalid'; error: ToolCallSyntaxError };

const OPENS_LIKE_A_CALL = /^\[?\s*@[a-z][a-z0-9_-]*\//;

export function readTypedInput(text: string, options: ParseOptions = {}): TypedInput {
  const trimmed = text.trim();
  if (!OPENS_LIKE_A_CALL.test(trimmed)) return { kind: 'message' };
  try {
    return { kind: 'calls', program: parseToolCall(trimmed, options) };
  } catch (error) {
    if (isToolCallSyntaxError(error)) return { kind: 'invalid', error };
    throw error;
  }
}

export interface DirectContextSources {
  /** Names the secrets module knows: `$env` never resolves them, granted or not. */
  secretNames: Iterable<string>;
  /** Values read from the secrets module so far: no reference may carry one into arguments. */
  secretValues: readonly string[];
  /** The variables the policy lets tools see; `$env.X` reads only these. */
  grantedEnv?: Readonly<Record<string, string>>;
  /** What `$ctx.x` reads. */
  ctx?: Readonly<Record<string, unknown>>;
}

/** Provider keys are secrets even when they only live in the environment. */
const SECRET_LOOKING = /(^|_)(API_?KEY|TOKEN|SECRET|PASSWORD|PASSPHRASE)(_|$)/i;

export function directCallContext(sources: DirectContextSources): ResolveContext {
  const names = new Set(sources.secretNames);
  const env = sources.grantedEnv ?? {};
  return {
    ctx: sources.ctx,
    env: { allow: Object.keys(env), values: env },
    isSecretName: (name) => names.has(name) || SECRET_LOOKING.test(name),
    secretValues: sources.secretValues,
  };
}
