/** Random valid programs (as ASTs without spans) for round-trip and fuzz tests. */

import type { ParamValue, Span, ToolInvoke } from '../../../src/main/core/toolcall/ast.js';
import type { ToolCallProgram } from '../../../src/main/core/toolcall/index.js';

const SPAN: Span = {
  start: { line: 1, column: 1, offset: 0 },
  end: { line: 1, column: 1, offset: 0 },
};
const ALPHA = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const IDENT_REST = `${ALPHA}0123456789_-`;
const STRING_CHARS = [
  'a',
  'Z',
  ' ',
  '"',
  "'",
  '\\',
  '\n',
  '\t',
  '\u0001',
  ';',
  '}',
  '$',
  '@',
  'é',
  '😀',
  '/',
  '\u007f',
];

export class Gen {
  constructor(private readonly rand: () => number) {}

  int(n: number): number {
    return Math.floor(this.rand() * n);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }

  ident(): string {
    let s = this.pick([...ALPHA]);
    const n = this.int(6);
    for (let i = 0; i < n; i++) s += this.pick([...IDENT_REST]);
    return s;
  }

  value(depth = 0): ParamValue {
    const k = this.int(depth > 2 ? 6 : 7);
    switch (k) {
      case 0: {
        let s = '';
        const n = this.int(8);
        for (let i = 0; i < n; i++) s += this.pick(STRING_CHARS);
        return { kind: 'string', value: s, span: SPAN };
      }
      case 1:
        return {
          kind: 'integer',
          value: this.int(2) ? this.int(1000) : -this.int(2 ** 40) || 0,
          span: SPAN,
        };
      case 2: {
        const scale = 10 ** (this.int(50) - 25);
        return { kind: 'float', value: (this.rand() - 0.5) * scale, span: SPAN };
      }
      case 3:
        return { kind: 'hex', value: this.int(2 ** 32), span: SPAN };
      case 4:
        return { kind: 'boolean', value: this.rand() < 0.5, span: SPAN };
      case 5:
        return {
          kind: 'reference',
          scope: this.pick(['prev', 'ctx', 'env', 'self'] as const),
          name: this.ident(),
          span: SPAN,
        };
      default: {
        const n = 1 + this.int(3);
        return {
          kind: 'array',
          items: Array.from({ length: n }, () => this.value(depth + 1)),
          span: SPAN,
        };
      }
    }
  }

  invoke(): ToolInvoke {
    const namespace =
      this.rand() < 0.8
        ? this.pick(['fs', 'net', 'sys', 'code', 'data', 'ui', 'memory'])
        : undefined;
    const name = this.ident();
    const keys = new Set<string>();
    const n = this.int(4);
    for (let i = 0; i < n; i++) keys.add(this.ident());
    return {
      kind: 'invoke',
      ...(namespace ? { namespace } : {}),
      name,
      tool: namespace ? `${namespace}/${name}` : name,
      params: [...keys].map((key) => ({ key, keySpan: SPAN, value: this.value(), span: SPAN })),
      span: SPAN,
    };
  }

  program(): ToolCallProgram {
    const k = this.int(3);
    if (k === 0) return this.invoke();
    const calls = Array.from({ length: 1 + this.int(3) }, () => this.invoke());
    if (k === 1 && calls.length > 1) return { kind: 'chain', calls, span: SPAN };
    return { kind: 'parallel', calls, span: SPAN };
  }
}
