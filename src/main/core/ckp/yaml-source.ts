/** A parsed manifest file: its documents as data, with line/column lookup for document paths. */
import { readFile } from 'node:fs/promises';
import { type Document, isNode, LineCounter, parseAllDocuments } from 'yaml';
import type { DocPath, ManifestIssue } from './issues.js';

export interface SourceDocument {
  file: string;
  /** Index of this document inside a multi-document (`---`) file. */
  index: number;
  data: unknown;
  /** Line/column (1-based) of the node at `path`, or of its nearest existing ancestor. */
  locate(path: DocPath): { line: number; column: number } | undefined;
}

export interface SourceFile {
  file: string;
  documents: SourceDocument[];
  /** Syntax errors, already as issues. */
  issues: ManifestIssue[];
}

/** Aliases a document may expand; far above any real manifest, far below a billion laughs. */
const MAX_ALIAS_COUNT = 100;

export function parseSource(file: string, text: string): SourceFile {
  const lineCounter = new LineCounter();
  // YAML 1.2 is a superset of JSON, so one parser serves .yaml, .yml and .json with positions.
  const docs = parseAllDocuments(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const list: Document.Parsed[] = Array.isArray(docs) ? docs : [];
  const issues: ManifestIssue[] = [];
  const documents: SourceDocument[] = [];
  list.forEach((doc, index) => {
    for (const error of doc.errors) {
      const pos = lineCounter.linePos(error.pos[0]);
      issues.push({
        rule: 'yaml.syntax',
        severity: 'error',
        file,
        path: '(document)',
        message: error.message.split('\n')[0] ?? error.message,
        line: pos.line,
        column: pos.col,
      });
    }
    if (doc.errors.length > 0) return;
    let data: unknown;
    try {
      data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (error) {
      // An alias bomb (anchors nested to expand into millions of nodes) stops here, named.
      const pos = lineCounter.linePos(doc.range[0]);
      issues.push({
        rule: 'yaml.syntax',
        severity: 'error',
        file,
        path: '(document)',
        message: `${(error as Error).message} (more than ${MAX_ALIAS_COUNT} alias expansions)`,
        line: pos.line,
        column: pos.col,
      });
      return;
    }
    documents.push({
      file,
      index,
      data,
      locate(path) {
        for (let depth = path.length; depth >= 0; depth--) {
          const node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
          if (isNode(node) && node.range) {
            const pos = lineCounter.linePos(node.range[0]);
            return { line: pos.line, column: pos.col };
          }
        }
        return undefined;
      },
    });
  });
  return { file, documents, issues };
}

export async function readSource(file: string): Promise<SourceFile> {
  return parseSource(file, await readFile(file, 'utf8'));
}
