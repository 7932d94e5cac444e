/** Canonical printer: parse(formatToolCall(p)) deep-equals p, spans aside. */
import type { ParamValue, ToolCallProgram, ToolInvoke } from './ast.js';

/** A float written as digits '.' digits (the BNF has no exponent), e.g. 1e21 -> "1000...0.0". */
export function formatFloat(value: number): string {
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  const abs = Math.abs(value);
  let text = String(abs);
  const exp = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (exp) {
    const digits = (exp[1] ?? '') + (exp[2] ?? '');
    const power = Number(exp[3]);
    if (power >= 0) {
      text = digits.padEnd(power + 1, '0');
    } else {
      text = `0.${'0'.repeat(-power - 1)}${digits}`;
    }
  }
  if (!text.includes('.')) text += '.0';
  return sign + text;
}

/** Double-quoted, escaping quotes, backslashes and control characters. */
export function formatString(value: string): string {
  let out = '"';
  for (const ch of value) {
    const code = ch.charCodeAt(0);
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (
      code < 0x20 ||
      code === 0x7f ||
      (ch.length === 1 && code >= 0xd800 && code <= 0xdfff)
    ) {
      // Lone surrogates too: they would not survive a UTF-8 round trip otherwise.
      out += `\\u${code.toString(16).padStart(4, '0')}`;
    } else out += ch;
  }
  return `${out}"`;
}

export function formatValue(value: ParamValue): string {
  switch (value.kind) {
    case 'string':
      return formatString(value.value);
    case 'integer':
      return String(value.value);
    case 'float':
      return formatFloat(value.value);
    case 'hex':
      return `0x${value.value.toString(16).toUpperCase()}`;
    case 'boolean':
      return value.value ? 'true' : 'false';
    case 'array':
      return `(${value.items.map(formatValue).join(',')})`;
    case 'reference':
      return `$${value.scope}.${value.name}`;
  }
}

export function formatInvoke(call: ToolInvoke): string {
  const params = call.params.map((p) => `${p.key}=${formatValue(p.value)}`).join(';');
  return `@${call.tool}{${params}}`;
}

/** The compact canonical text: no whitespace, double-quoted strings, `true`/`false`. */
export function formatToolCall(program: ToolCallProgram): string {
  switch (program.kind) {
    case 'invoke':
      return formatInvoke(program);
    case 'chain':
      return program.calls.map(formatInvoke).join('->');
    case 'parallel':
      return `[${program.calls.map(formatInvoke).join(',')}]`;
  }
}
