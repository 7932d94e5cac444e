/**
 * The `claw://` URI scheme of CKP §7: canonical local, canonical registry and the manifest-only
 * alias form, parsed with the ABNF grammar and nothing looser.
 */
import type { Result } from '../../../shared/result.js';
import { parseSemver } from './version.js';

/** URI-addressable kinds (lower case, as in URIs). `Claw` itself is not addressable. */
export const URI_KINDS = [
  'identity',
  'provider',
  'channel',
  'tool',
  'skill',
  'memory',
  'sandbox',
  'policy',
  'swarm',
  // §7's ABNF omits telemetry, but §5.10 defines `claw://local/telemetry/{name}`; we accept it.
  'telemetry',
  // 0.3.0 §5.7.
  'world-model',
] as const;
export type UriKind = (typeof URI_KINDS)[number];

export type ClawUri =
  | { form: 'local'; kind: UriKind; name: string; version?: string; canonical: string }
  | { form: 'alias'; kind: UriKind; name: string; canonical: string }
  | { form: 'registry'; namespace: string; name: string; version: string; canonical: string };

/** A parsed URI, or why the text is not one. */
export type UriResult = Result<ClawUri, string>;

const NAME = /^[A-Za-z0-9-]{1,63}$/;
const NAMESPACE = /^[A-Za-z0-9.-]{1,63}$/;

function isUriKind(value: string): value is UriKind {
  return (URI_KINDS as readonly string[]).includes(value);
}

function checkVersion(version: string): string | undefined {
  return parseSemver(version) ? undefined : `"${version}" is not a semver version (1.2.3[-pre])`;
}

function splitVersion(tail: string): { name: string; version?: string } {
  const at = tail.indexOf('@');
  return at < 0 ? { name: tail } : { name: tail.slice(0, at), version: tail.slice(at + 1) };
}

/** Parses any `claw://` URI; the result carries its canonical form. */
export function parseClawUri(text: string): UriResult {
  const fail = (reason: string): UriResult => ({ ok: false, error: reason });
  if (!text.startsWith('claw://')) return fail('a CKP URI starts with "claw://"');
  const segments = text.slice('claw://'.length).split('/');

  if (segments[0] === 'registry') {
    if (segments.length !== 3) return fail('expected claw://registry/{namespace}/{name}@{version}');
    const namespace = segments[1] ?? '';
    const { name, version } = splitVersion(segments[2] ?? '');
    if (!NAMESPACE.test(namespace)) return fail(`invalid registry namespace "${namespace}"`);
    if (!NAME.test(name)) return fail(`invalid name "${name}" (1-63 letters, digits, "-")`);
    if (version === undefined) return fail('a registry URI must include "@{version}"');
    const bad = checkVersion(version);
    if (bad) return fail(bad);
    return { ok: true, value: { form: 'registry', namespace, name, version, canonical: text } };
  }

  const local = segments[0] === 'local';
  const parts = local ? segments.slice(1) : segments;
  if (parts.length !== 2) {
    return fail(
      local
        ? 'expected claw://local/{kind}/{name}[@{version}]'
        : 'expected claw://{kind}/{name}, claw://local/... or claw://registry/...',
    );
  }
  const kind = parts[0] ?? '';
  if (!isUriKind(kind)) return fail(`unknown kind "${kind}" (one of ${URI_KINDS.join(', ')})`);
  const { name, version } = splitVersion(parts[1] ?? '');
  if (!NAME.test(name)) return fail(`invalid name "${name}" (1-63 letters, digits, "-")`);
  if (!local) {
    if (version !== undefined) return fail('the alias form claw://{kind}/{name} takes no version');
    return {
      ok: true,
      value: { form: 'alias', kind, name, canonical: `claw://local/${kind}/${name}` },
    };
  }
  if (version !== undefined) {
    const bad = checkVersion(version);
    if (bad) return fail(bad);
  }
  return {
    ok: true,
    value: { form: 'local', kind, name, ...(version ? { version } : {}), canonical: text },
  };
}

/** The canonical local URI of a primitive. */
export function canonicalUri(kind: UriKind, name: string, version?: string): string {
  return `claw://local/${kind}/${name}${version ? `@${version}` : ''}`;
}
