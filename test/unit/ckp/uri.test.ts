import { describe, expect, it } from 'vitest';
import { canonicalUri, parseClawUri } from '../../../src/main/core/ckp/uri.js';
import { checkProtocolVersion } from '../../../src/main/core/ckp/version.js';

describe('claw:// URI grammar (CKP §7)', () => {
  it.each([
    [
      'claw://local/identity/research-assistant',
      'local',
      'claw://local/identity/research-assistant',
    ],
    ['claw://local/tool/web-fetch@1.2.0', 'local', 'claw://local/tool/web-fetch@1.2.0'],
    ['claw://local/skill/x@1.0.0-rc.1', 'local', 'claw://local/skill/x@1.0.0-rc.1'],
    ['claw://tool/web-fetch', 'alias', 'claw://local/tool/web-fetch'],
    ['claw://swarm/analysis-team', 'alias', 'claw://local/swarm/analysis-team'],
    ['claw://telemetry/observability', 'alias', 'claw://local/telemetry/observability'],
    [
      'claw://registry/community-skills/deep-research@2.0.0',
      'registry',
      'claw://registry/community-skills/deep-research@2.0.0',
    ],
    [
      'claw://registry/acme.corp/tool-1@10.20.30',
      'registry',
      'claw://registry/acme.corp/tool-1@10.20.30',
    ],
  ])('accepts %s as %s, canonical %s', (text, form, canonical) => {
    const result = parseClawUri(text);
    expect(result).toMatchObject({ ok: true, value: { form, canonical } });
  });

  it.each([
    ['http://local/tool/x', 'a CKP URI starts with "claw://"'],
    ['claw://registry/standard-tools/shell', 'a registry URI must include "@{version}"'],
    ['claw://registry/ns/shell@1.0', '"1.0" is not a semver version (1.2.3[-pre])'],
    ['claw://registry/ns_bad/shell@1.0.0', 'invalid registry namespace "ns_bad"'],
    ['claw://tool/web-fetch@1.2.0', 'the alias form claw://{kind}/{name} takes no version'],
    ['claw://local/claw/root', 'unknown kind "claw"'],
    ['claw://local/Tool/x', 'unknown kind "Tool"'],
    ['claw://tool/Web_Fetch', 'invalid name "Web_Fetch" (1-63 letters, digits, "-")'],
    [`claw://tool/${'a'.repeat(64)}`, `invalid name "${'a'.repeat(64)}"`],
    ['claw://local/tool', 'expected claw://local/{kind}/{name}[@{version}]'],
    ['claw://local/tool/a/b', 'expected claw://local/{kind}/{name}[@{version}]'],
    ['claw://tool', 'expected claw://{kind}/{name}, claw://local/... or claw://registry/...'],
    ['claw://local/tool/x@', '"" is not a semver version'],
  ])('rejects %s: %s', (text, reason) => {
    const result = parseClawUri(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain(reason);
  });

  it('builds canonical URIs', () => {
    expect(canonicalUri('tool', 'echo', '1.0.0')).toBe('claw://local/tool/echo@1.0.0');
    expect(canonicalUri('policy', 'p')).toBe('claw://local/policy/p');
  });
});

describe('protocol version compatibility (CKP §1.4)', () => {
  it('accepts the same major, flags a newer minor, rejects another major or non-semver', () => {
    expect(checkProtocolVersion('0.2.0')).toEqual({ ok: true, value: { newerMinor: false } });
    expect(checkProtocolVersion('0.1.7')).toEqual({ ok: true, value: { newerMinor: false } });
    expect(checkProtocolVersion('0.9.0')).toEqual({ ok: true, value: { newerMinor: true } });
    expect(checkProtocolVersion('1.0.0')).toEqual({ ok: false, error: 'other-major' });
    expect(checkProtocolVersion('0.2')).toEqual({ ok: false, error: 'not-semver' });
  });
});
