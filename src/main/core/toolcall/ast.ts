/**
 * The typed AST of seed 000's tool-call language (`@ns/tool{k=v;...}`, chains `->`, parallel
 * groups `[a, b]`). The BNF allows no null, no objects and no nested chains/groups, so neither
 * does the AST: a program is one call, a chain of calls, or a parallel group of calls.
 */

/** Where a node starts in the source: 1-based line and column, 0-based UTF-16 offset. */
export interface Position {
  line: number;
  column: number;
  offset: number;
}

/** Half-open source range [start, end). */
export interface Span {
  start: Position;
  end: Position;
}

export interface StringValue {
  kind: 'string';
  value: string;
  span: Span;
}

/** `<integer>`: a safe JavaScript integer (larger literals are rejected at parse time). */
export interface IntegerValue {
  kind: 'integer';
  value: number;
  span: Span;
}

export interface FloatValue {
  kind: 'float';
  value: number;
  span: Span;
}

/** `<hex>` (`0x1F`): kept apart from integers so the printer writes it back as hex. */
export interface HexValue {
  kind: 'hex';
  value: number;
  span: Span;
}

/** `<boolean>`: `yes`/`no` are synonyms of `true`/`false` and normalise to them. */
export interface BooleanValue {
  kind: 'boolean';
  value: boolean;
  span: Span;
}

/** `<array>`: `(v, ...)`, never empty in the BNF. */
export interface ArrayValue {
  kind: 'array';
  items: ParamValue[];
  span: Span;
}

export type ReferenceScope = 'prev' | 'ctx' | 'env' | 'self';

/** `<reference>`: `$scope.name`, a single identifier after the scope (no deeper paths). */
export interface ReferenceValue {
  kind: 'reference';
  scope: ReferenceScope;
  name: string;
  span: Span;
}

export type ParamValue =
  | StringValue
  | IntegerValue
  | FloatValue
  | HexValue
  | BooleanValue
  | ArrayValue
  | ReferenceValue;

export interface Param {
  key: string;
  keySpan: Span;
  value: ParamValue;
  span: Span;
}

/** `<tool-invoke>`: `@ns/name{...}`; `namespace` is absent for a bare `@name{...}`. */
export interface ToolInvoke {
  kind: 'invoke';
  namespace?: string;
  name: string;
  /** `ns/name` or `name`: the registry's tool name. */
  tool: string;
  params: Param[];
  span: Span;
}

/** `<tool-chain>` of two or more calls; each may read its predecessor's result via `$prev`. */
export interface ToolChain {
  kind: 'chain';
  calls: ToolInvoke[];
  span: Span;
}

/** `<tool-parallel>`: calls with no order between them. */
export interface ToolParallel {
  kind: 'parallel';
  calls: ToolInvoke[];
  span: Span;
}

/** `<tool-call>`: a single call, a chain or a parallel group. */
export type ToolCallProgram = ToolInvoke | ToolChain | ToolParallel;

/** The calls of a program in source order. */
export function programCalls(program: ToolCallProgram): ToolInvoke[] {
  return program.kind === 'invoke' ? [program] : program.calls;
}
