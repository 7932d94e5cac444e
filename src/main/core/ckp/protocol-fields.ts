/** The `claw:` protocol version of a document, and what of a spec needs 0.3.0. */

import type { IssueList } from './issue-list.js';
import { isRecord } from './issue-list.js';
import type { DocPath } from './issues.js';
import { MEMORY_STORE_FIELDS_0_3, type PrimitiveKind, TELEMETRY_FIELDS_0_3 } from './schemas.js';
import { CKP_PROTOCOL_VERSION, checkProtocolVersion } from './version.js';
import type { SourceDocument } from './yaml-source.js';

/** Checks `claw:` of a document; returns whether its fields are to be read leniently. */
export function checkProtocol(issues: IssueList, doc: SourceDocument, at: DocPath, value: unknown) {
  if (value === undefined) {
    issues.add(
      'envelope.required',
      doc,
      at.slice(0, -1),
      'the "claw" protocol version is required',
    );
    return false;
  }
  const result = checkProtocolVersion(String(value));
  if (!result.ok) {
    issues.add(
      'envelope.protocol-version',
      doc,
      at,
      result.error === 'not-semver'
        ? `claw "${String(value)}" is not a semver protocol version`
        : `claw "${String(value)}" has another major version than this runtime's ${CKP_PROTOCOL_VERSION} (incompatible)`,
    );
    return false;
  }
  if (result.value.newerMinor) {
    issues.add(
      'envelope.protocol-version',
      doc,
      at,
      `claw "${String(value)}" is newer than this runtime's ${CKP_PROTOCOL_VERSION}; fields it does not know are ignored`,
      'warning',
    );
  }
  return result.value.newerMinor;
}

/** What of a spec only 0.3.0 has: the WorldModel kind, a skill's world_model_ref, store fields. */
export function introducedIn030(
  kind: PrimitiveKind,
  spec: unknown,
): { at: DocPath; what: string }[] {
  if (kind === 'WorldModel') return [{ at: [], what: 'the WorldModel kind' }];
  if (!isRecord(spec)) return [];
  if (kind === 'Skill' && spec.world_model_ref !== undefined)
    return [{ at: ['world_model_ref'], what: 'world_model_ref' }];
  if (kind === 'Telemetry')
    return Object.entries(TELEMETRY_FIELDS_0_3).flatMap(([group, fields]) => {
      const declared = spec[group];
      return isRecord(declared)
        ? fields
            .filter((field) => declared[field] !== undefined)
            .map((field) => ({ at: [group, field], what: `${group}.${field}` }))
        : [];
    });
  if (kind !== 'Memory' || !Array.isArray(spec.stores)) return [];
  return spec.stores.flatMap((store: unknown, index) =>
    isRecord(store)
      ? MEMORY_STORE_FIELDS_0_3.filter((field) => store[field] !== undefined).map((field) => ({
          at: ['stores', index, field],
          what: `the store field ${field}`,
        }))
      : [],
  );
}
