/** CKP protocol versioning (§1.4): same major is compatible, another major is rejected. */
import type { Result } from '../../../shared/result.js';

/** The CKP version this runtime implements. */
export const CKP_PROTOCOL_VERSION = '0.2.0';

const SEMVER = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?$/;

export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  pre?: string;
}

export function parseSemver(text: string): SemVer | undefined {
  const match = SEMVER.exec(text);
  if (!match) return undefined;
  const [, major, minor, patch, pre] = match;
  return {
    major: Number(major),
    minor: Number(minor),
    patch: Number(patch),
    ...(pre ? { pre } : {}),
  };
}

/** Loadable (and whether it is a newer minor than ours), or why not. */
export type Compatibility = Result<{ newerMinor: boolean }, 'not-semver' | 'other-major'>;

/** Whether a manifest declaring `declared` can be loaded by a runtime implementing `runtime`. */
export function checkProtocolVersion(
  declared: string,
  runtime: string = CKP_PROTOCOL_VERSION,
): Compatibility {
  const ours = parseSemver(runtime);
  const theirs = parseSemver(declared);
  if (!ours || !theirs) return { ok: false, error: 'not-semver' };
  if (ours.major !== theirs.major) return { ok: false, error: 'other-major' };
  return { ok: true, value: { newerMinor: theirs.minor > ours.minor } };
}
