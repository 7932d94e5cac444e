/**
 * Reference resolution and execution planning. `$prev.x` reads the previous chain step's
 * result, `$ctx.x` the caller's context, `$self.x` an earlier argument of the same call, and
 * `$env.X` an environment variable, but only one the policy granted (an explicit allow list)
 * and never a secret: a secret's name is refused before anything is read, and no reference may
 * carry a secret's value into arguments.
 */
import type { ParamValue, ReferenceValue, ToolCallProgram, ToolInvoke } from './ast.js';
import { ToolCallReferenceError, type ToolCallReferenceReason } from './errors.js';

export interface ResolveContext {
  /** Values `$ctx.x` may read (own properties only). */
  ctx?: Readonly<Record<string, unknown>>;
  /** Environment variables `$env.X` may read: only names in `allow` (the policy's grant). */
  env?: {
    allow: readonly string[];
    /** Where values come from; default process.env. */
    values?: Readonly<Record<string, string | undefined>>;
  };
  /** True for names registered as secrets: `$env` never resolves them. */
  isSecretName: (name: string) => boolean;
  /** Secret values: a reference whose value contains one is refused. Empty strings ignored. */
  secretValues: readonly string[];
  /** The result `$prev` reads for a first step or a parallel group (e.g. the last turn's). */
  previous?: { result: unknown };
}

/** One call with plain JSON arguments, ready for the registry's validation and policy. */
export interface ResolvedCall {
  tool: string;
  args: Record<string, unknown>;
}

export type PlanStep =
  | { kind: 'call'; call: ToolInvoke }
  /** Calls with no order between them: the runtime may run read-only ones concurrently. */
  | { kind: 'parallel'; calls: ToolInvoke[] };

export interface ExecutionPlan {
  steps: PlanStep[];
}

/** The plan of a program: a chain is sequential steps, a group one parallel step. */
export function planToolCall(program: ToolCallProgram): ExecutionPlan {
  switch (program.kind) {
    case 'invoke':
      return { steps: [{ kind: 'call', call: program }] };
    case 'chain':
      return { steps: program.calls.map((call) => ({ kind: 'call', call })) };
    case 'parallel':
      return { steps: [{ kind: 'parallel', calls: program.calls }] };
  }
}

const DEFERRED = Symbol('deferred $prev');

function refText(ref: ReferenceValue): string {
  return `$${ref.scope}.${ref.name}`;
}

function refuse(ref: ReferenceValue, reason: ToolCallReferenceReason, why: string): never {
  const { line, column } = ref.span.start;
  throw new ToolCallReferenceError(
    reason,
    refText(ref),
    `${line}:${column}: ${refText(ref)}: ${why}`,
    line,
    column,
  );
}

function ownValue(holder: unknown, name: string): { found: boolean; value?: unknown } {
  if (typeof holder !== 'object' || holder === null || !Object.hasOwn(holder, name)) {
    return { found: false };
  }
  return { found: true, value: (holder as Record<string, unknown>)[name] };
}

/** A JSON copy, so tools never receive functions, class instances or shared objects. */
function plainJson(ref: ReferenceValue, value: unknown): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  if (text === undefined) refuse(ref, 'missing', 'the value is not JSON');
  return JSON.parse(text);
}

function containsSecret(value: unknown, secrets: readonly string[]): boolean {
  if (typeof value === 'string') return secrets.some((s) => s !== '' && value.includes(s));
  if (Array.isArray(value)) return value.some((v) => containsSecret(v, secrets));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).some(
      ([k, v]) => containsSecret(k, secrets) || containsSecret(v, secrets),
    );
  }
  return false;
}

class Resolver {
  constructor(
    private readonly context: ResolveContext,
    private readonly previous: { result: unknown } | typeof DEFERRED | undefined,
  ) {}

  call(call: ToolInvoke): ResolvedCall {
    const args: Record<string, unknown> = {};
    for (const param of call.params) {
      args[param.key] = this.value(param.value, args, call);
    }
    return { tool: call.tool, args };
  }

  private value(value: ParamValue, self: Record<string, unknown>, call: ToolInvoke): unknown {
    switch (value.kind) {
      case 'array':
        return value.items.map((item) => this.value(item, self, call));
      case 'reference':
        return this.reference(value, self, call);
      default:
        return value.value;
    }
  }

  private reference(ref: ReferenceValue, self: Record<string, unknown>, call: ToolInvoke): unknown {
    const value = this.lookup(ref, self, call);
    if (value === DEFERRED) return null;
    const plain = plainJson(ref, value);
    if (containsSecret(plain, this.context.secretValues)) {
      refuse(ref, 'secret-value', 'the value contains a secret');
    }
    return plain;
  }

  private lookup(ref: ReferenceValue, self: Record<string, unknown>, call: ToolInvoke): unknown {
    switch (ref.scope) {
      case 'prev': {
        if (this.previous === DEFERRED) return DEFERRED;
        if (!this.previous) refuse(ref, 'no-previous-result', 'there is no previous step');
        const own = ownValue(this.previous.result, ref.name);
        if (!own.found) refuse(ref, 'missing', `the previous result has no field '${ref.name}'`);
        return own.value;
      }
      case 'ctx': {
        const own = ownValue(this.context.ctx, ref.name);
        if (!own.found) refuse(ref, 'missing', `the context has no '${ref.name}'`);
        return own.value;
      }
      case 'self': {
        if (Object.hasOwn(self, ref.name)) return self[ref.name];
        const later = call.params.some((p) => p.key === ref.name);
        return later
          ? refuse(ref, 'self-not-earlier', `'${ref.name}' must come before the reference`)
          : refuse(ref, 'missing', `the call has no argument '${ref.name}'`);
      }
      case 'env': {
        // The secret check comes first: a secret's name is refused even if wrongly granted.
        if (this.context.isSecretName(ref.name))
          refuse(ref, 'secret-name', 'secrets are never resolved');
        const env = this.context.env;
        if (!env?.allow.includes(ref.name)) {
          refuse(ref, 'env-not-allowed', 'the policy does not grant this variable');
        }
        const values = env.values ?? process.env;
        const own = ownValue(values, ref.name);
        if (!own.found || own.value === undefined)
          refuse(ref, 'missing', 'the variable is not set');
        return own.value;
      }
    }
  }
}

/** Resolves one call's references; `previous` is what `$prev` reads. */
export function resolveCall(
  call: ToolInvoke,
  context: ResolveContext,
  previous: { result: unknown } | undefined = context.previous,
): ResolvedCall {
  return new Resolver(context, previous).call(call);
}

/**
 * Checks every reference that does not depend on a step's result (`$ctx`, `$env`, `$self`, and
 * `$prev` in a first step or parallel group), so a refusal happens before anything runs.
 */
export function checkReferences(program: ToolCallProgram, context: ResolveContext): void {
  planToolCall(program).steps.forEach((step, index) => {
    const calls = step.kind === 'call' ? [step.call] : step.calls;
    const previous = index === 0 ? context.previous : DEFERRED;
    for (const call of calls) new Resolver(context, previous).call(call);
  });
}

/**
 * Runs a program through `run` (the caller's registry, validation and policy): chain steps in
 * order, each `$prev` reading the step before; parallel calls concurrently. Returns the results
 * in call order. All reference refusals that can be known up front happen before the first run.
 */
export async function runToolCall(
  program: ToolCallProgram,
  context: ResolveContext,
  run: (call: ResolvedCall) => Promise<unknown>,
): Promise<unknown[]> {
  checkReferences(program, context);
  const results: unknown[] = [];
  let previous = context.previous;
  for (const step of planToolCall(program).steps) {
    if (step.kind === 'call') {
      const result = await run(resolveCall(step.call, context, previous));
      results.push(result);
      previous = { result };
    } else {
      const resolved = step.calls.map((call) => resolveCall(call, context, previous));
      results.push(...(await Promise.all(resolved.map(run))));
    }
  }
  return results;
}
