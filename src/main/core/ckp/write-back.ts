/**
 * Settings changed in the UI are written back into the manifest file itself, through yaml's
 * Document API so comments and layout survive. The edited text is validated before it replaces
 * the file: a bad edit is rejected and the file on disk is left exactly as it was.
 */

import { readFile, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isMap, isSeq, parseDocument } from 'yaml';
import { PincerError } from '../errors.js';
import { ManifestError } from './issues.js';
import { checkClaw, type LoadOptions } from './loader.js';
import type { ResolvedClaw } from './resolved.js';
import { MANIFEST_SLOTS, type ManifestSlot } from './schemas.js';

export type ManifestEdit =
  | { path: ReadonlyArray<string | number>; value: unknown }
  | { path: ReadonlyArray<string | number>; delete: true };

export class ManifestEditError extends PincerError {
  readonly code = 'manifest_edit_failed';
  constructor(message: string) {
    super('invalid_request', message);
    this.name = 'ManifestEditError';
  }
}

/** Applies edits to the YAML text, keeping comments; pure, for tests and previews. */
export function applyEdits(text: string, edits: ManifestEdit[]): string {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new ManifestEditError(doc.errors[0]?.message ?? 'bad YAML');
  for (const edit of edits) {
    if ('delete' in edit) doc.deleteIn(edit.path);
    else doc.setIn(edit.path, doc.createNode(edit.value));
  }
  return doc.toString();
}

/** Edits the manifest file in place if, and only if, the result is a valid manifest. */
export async function editManifest(
  file: string,
  edits: ManifestEdit[],
  options?: LoadOptions,
): Promise<ResolvedClaw> {
  const target = path.resolve(file);
  const next = applyEdits(await readFile(target, 'utf8'), edits);
  // The candidate sits next to the original so relative references resolve the same way.
  const candidate = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.tmp`);
  await writeFile(candidate, next, 'utf8');
  try {
    const result = await checkClaw(candidate, options);
    if (!result.claw) {
      throw new ManifestError(
        target,
        result.issues.map((issue) =>
          issue.file === candidate ? { ...issue, file: target } : issue,
        ),
      );
    }
    await rename(candidate, target);
  } finally {
    await unlink(candidate).catch(() => undefined);
  }
  const reloaded = await checkClaw(target, options);
  if (!reloaded.claw) throw new ManifestError(target, reloaded.issues);
  return reloaded.claw;
}

/**
 * Adds or replaces an inline primitive in a slot of the manifest, matched by name (e.g. the
 * settings UI adding a cloud provider). `body` is the inline mapping: `name` plus spec fields.
 */
export async function upsertInlinePrimitive(
  file: string,
  slot: ManifestSlot,
  body: { name: string } & Record<string, unknown>,
  options?: LoadOptions,
): Promise<ResolvedClaw> {
  const doc = parseDocument(await readFile(path.resolve(file), 'utf8'));
  const current = doc.getIn(['spec', slot], true);
  const inline = { inline: body };
  if (!MANIFEST_SLOTS[slot].list) {
    return editManifest(file, [{ path: ['spec', slot], value: inline }], options);
  }
  if (current !== undefined && !isSeq(current)) {
    throw new ManifestEditError(`spec.${slot} is not a list`);
  }
  const items = isSeq(current) ? current.items : [];
  const index = items.findIndex((item) => {
    if (!isMap(item)) return false;
    const name = doc.getIn(['spec', slot, items.indexOf(item), 'inline', 'name']);
    const metaName = doc.getIn(['spec', slot, items.indexOf(item), 'inline', 'metadata', 'name']);
    return name === body.name || metaName === body.name;
  });
  return editManifest(
    file,
    [{ path: ['spec', slot, index < 0 ? items.length : index], value: inline }],
    options,
  );
}
