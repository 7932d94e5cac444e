/**
 * Parses a manifest file's text with `yaml`: each document's data and the line/column of every
 * node in it. Loaded only when the parsed-source cache has not seen the text before.
 */
import {
  type Document,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseAllDocuments,
} from 'yaml';
import type { ManifestIssue } from './issues.js';
import type { ParsedDocument, ParsedSource, Positions } from './yaml-source.js';

/** Aliases a document may expand; far above any real manifest, far below a billion laughs. */
const MAX_ALIAS_COUNT = 100;

export function parseYaml(file: string, text: string): ParsedSource {
  const lineCounter = new LineCounter();
  // YAML 1.2 is a superset of JSON, so one parser serves .yaml, .yml and .json with positions.
  const docs = parseAllDocuments(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const list: Document.Parsed[] = Array.isArray(docs) ? docs : [];
  const issues: ManifestIssue[] = [];
  const documents: ParsedDocument[] = [];
  const at = (offset: number): [number, number] => {
    const pos = lineCounter.linePos(offset);
    return [pos.line, pos.col];
  };
  list.forEach((doc, index) => {
    for (const error of doc.errors) {
      const [line, column] = at(error.pos[0]);
      issues.push({
        rule: 'yaml.syntax',
        severity: 'error',
        file,
        path: '(document)',
        message: error.message.split('\n')[0] ?? error.message,
        line,
        column,
      });
    }
    if (doc.errors.length > 0) return;
    let data: unknown;
    try {
      data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (error) {
      // An alias bomb (anchors nested to expand into millions of nodes) stops here, named.
      const [line, column] = at(doc.range[0]);
      issues.push({
        rule: 'yaml.syntax',
        severity: 'error',
        file,
        path: '(document)',
        message: `${(error as Error).message} (more than ${MAX_ALIAS_COUNT} alias expansions)`,
        line,
        column,
      });
      return;
    }
    const positions: Positions = {};
    if (doc.contents) record(doc.contents, [], positions, at);
    documents.push({ index, data, positions });
  });
  return { documents, issues };
}

/** Where each node starts, keyed by its document path as the data has it (map keys as strings). */
function record(
  node: Node,
  path: Array<string | number>,
  positions: Positions,
  at: (offset: number) => [number, number],
): void {
  if (node.range) positions[JSON.stringify(path)] = at(node.range[0]);
  // An alias is located where it is written; what it points at has its own place.
  if (isAlias(node)) return;
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isPair(pair) || !isScalar(pair.key) || !pair.value) continue;
      const value = pair.value as Node;
      record(value, [...path, String(pair.key.value)], positions, at);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, index) => {
      if (item && typeof item === 'object' && 'range' in item)
        record(item as Node, [...path, index], positions, at);
    });
  }
}
