/**
 * Problems found while loading a manifest, each with its file, document path, rule and line;
 * zod's issues on a spec turned into them; and reading a value at a document path.
 */
import type { z } from 'zod';
import { type DocPath, formatDocPath, type ManifestIssue, type RuleId } from './issues.js';
import type { SourceDocument } from './yaml-source.js';

export type Raw = Record<string, unknown>;
export const isRecord = (value: unknown): value is Raw =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export class IssueList {
  readonly items: ManifestIssue[] = [];
  add(
    rule: RuleId,
    doc: Pick<SourceDocument, 'file' | 'locate'>,
    at: DocPath,
    message: string,
    severity: ManifestIssue['severity'] = 'error',
  ) {
    const pos = doc.locate(at);
    this.items.push({
      rule,
      severity,
      file: doc.file,
      path: formatDocPath(at),
      message,
      ...(pos ? { line: pos.line, column: pos.column } : {}),
    });
  }
  get hasErrors() {
    return this.items.some((issue) => issue.severity === 'error');
  }
}

export function getAt(data: unknown, at: DocPath): unknown {
  let node = data;
  for (const key of at) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, unknown>)[key];
  }
  return node;
}

/** Turns zod issues on `data` (found at `base` in `doc`) into manifest issues. */
export function reportZod(
  issues: IssueList,
  doc: SourceDocument,
  base: DocPath,
  data: unknown,
  error: z.ZodError,
  kind: string,
  lenientUnknown: boolean,
) {
  for (const issue of error.issues) {
    const at = issue.path.filter((part): part is string | number => typeof part !== 'symbol');
    const full = [...base, ...at];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        issues.add(
          'schema.unknown-field',
          doc,
          [...full, key],
          `unknown field "${key}" in ${kind}${lenientUnknown ? ' (ignored: newer protocol minor)' : ''}`,
          lenientUnknown ? 'warning' : 'error',
        );
      }
    } else if (issue.code === 'invalid_type' && getAt(data, at) === undefined) {
      const field = String(at.at(-1) ?? '');
      issues.add('schema.required', doc, full, `${kind} requires "${field}"`);
    } else {
      issues.add('schema.type', doc, full, issue.message);
    }
  }
}

/** A copy of `data` without the keys zod reported as unrecognized. */
export function withoutUnknownKeys(data: unknown, error: z.ZodError): unknown {
  const copy: unknown = structuredClone(data);
  for (const issue of error.issues) {
    if (issue.code !== 'unrecognized_keys') continue;
    const at = issue.path.filter((part): part is string | number => typeof part !== 'symbol');
    const owner = getAt(copy, at);
    if (isRecord(owner)) for (const key of issue.keys) delete owner[key];
  }
  return copy;
}
