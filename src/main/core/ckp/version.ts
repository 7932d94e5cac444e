/**
 * CKP protocol versioning (§1.4): same major is compatible, another major is rejected. Pincer
 * reads 0.2.0 and 0.3.0 manifests side by side; a 0.3.0 field in a document that declares 0.2.0
 * is refused (that document's protocol does not have it).
 */
import type { Result } from '../../../shared/result.js';

/** The CKP versions this runtime implements, oldest first. */
export const CKP_PROTOCOL_VERSIONS = ['0.2.0', '0.3.0'] as const;
export type CkpProtocolVersion = (typeof CKP_PROTOCOL_VERSIONS)[number];

/** The newest CKP version this runtime implements. */
export const CKP_PROTOCOL_VERSION: CkpProtocolVersion = '0.3.0';

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

/**
 * The version `claw.initialize` answers: the newest one implemented that is not above what the
 * operator asked for (same major, minor at most the requested one). Undefined when none fits.
 */
export function negotiateProtocolVersion(requested: string): CkpProtocolVersion | undefined {
  const asked = parseSemver(requested);
  if (!asked) return undefined;
  return [...CKP_PROTOCOL_VERSIONS].reverse().find((version) => {
    const ours = parseSemver(version);
    return ours && ours.major === asked.major && ours.minor <= asked.minor;
  });
}

/** Whether a document that declares `declared` has what `introducedIn` brought. */
export function protocolHas(declared: string, introducedIn: CkpProtocolVersion): boolean {
  const theirs = parseSemver(declared);
  const since = parseSemver(introducedIn);
  if (!theirs || !since) return false;
  return (
    theirs.major > since.major || (theirs.major === since.major && theirs.minor >= since.minor)
  );
}
