import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManifestError } from '../../../src/main/core/ckp/issues.js';
import { checkClaw, loadClaw } from '../../../src/main/core/ckp/loader.js';
import {
  autonomyOf,
  policyRules,
  primaryProvider,
  providerChain,
  sandboxFor,
  toolCategory,
} from '../../../src/main/core/ckp/resolved.js';
import { fixture } from './fixtures.js';

const level3 = fixture('valid', 'level-3', 'claw.yaml');
const level3Options = {
  libraryDirs: [fixture('valid', 'level-3', 'library')],
  homedir: '/home/someone',
  tenantId: 'acme',
};

describe('loader: references, globs, URIs and inline primitives', () => {
  it('expands globs, follows alias and canonical URIs into the library, keeps manifest order', async () => {
    const claw = await loadClaw(level3, level3Options);
    expect(claw.tools.map((tool) => tool.uri)).toEqual([
      'claw://local/tool/read-note@2.1.0',
      'claw://local/tool/echo@0.9.0',
      'claw://local/tool/mcp-github@2.1.0',
    ]);
    expect(claw.tools[1]?.source.file).toBe(
      fixture('valid', 'level-3', 'library', 'tool', 'echo.yaml'),
    );
    expect(claw.policies[0]?.uri).toBe('claw://local/policy/baseline@1.0.0');
    expect(claw.conformance).toMatchObject({ level: 'level-3', label: 'Full', missingForNext: [] });
  });

  it('generates names for unnamed inline primitives and defaults versions to the manifest', async () => {
    const claw = await loadClaw(level3, level3Options);
    const [generated, named] = claw.providers;
    expect(generated).toMatchObject({
      name: 'swarm-lead-provider-1',
      version: '2.1.0',
      generatedName: true,
    });
    expect(named).toMatchObject({ name: 'backup', generatedName: false });
    expect(claw.memory?.name).toBe('swarm-lead-memory-1');
    expect(generated?.source).toMatchObject({ inline: true, path: 'spec.providers[0].inline' });
  });

  it('substitutes {identity_name}/{tenant_id} and resolves ~ and relative paths', async () => {
    const claw = await loadClaw(level3, { ...level3Options, contextDir: '/data' });
    expect(claw.memory?.spec.stores[0]?.path).toBe('/home/someone/.claw/workspaces/lead/');
    expect(claw.telemetry?.spec.exporters[0]?.path).toBe('/data/telemetry/acme.jsonl');
    expect(claw.identity.spec.context_files).toEqual({ notes: '/data/notes/lead-acme.md' });
  });

  it('applies the trigger defaults max_parallel 1 and overlap_policy skip (§5.3)', async () => {
    const claw = await loadClaw(level3, level3Options);
    expect(claw.channels.map((channel) => channel.spec.trigger)).toEqual([
      { schedule: '0 3 * * *', max_parallel: 1, overlap_policy: 'skip' },
      { table: 'orders', events: ['INSERT'], max_parallel: 3, overlap_policy: 'queue' },
    ]);
  });

  it('loads JSON manifests and JSON primitive files', async () => {
    const claw = await loadClaw(fixture('valid', 'json', 'claw.json'));
    expect(claw.providers[0]).toMatchObject({
      name: 'local',
      version: '3.0.0',
      uri: 'claw://local/provider/local@3.0.0',
    });
    expect(claw.identity.spec.autonomy).toBe('supervised');
  });

  it('reads a multi-document file as several primitives, each with its document index', async () => {
    const claw = await loadClaw(fixture('appendix-a', 'claw.yaml'));
    const write = claw.tools.find((tool) => tool.name === 'file-write');
    expect(write?.source).toMatchObject({
      file: fixture('appendix-a', 'tools', 'file-ops.yaml'),
      document: 1,
    });
  });

  it('fails a local URI that is not in the library, naming where it looked', async () => {
    const { issues } = await checkClaw(level3, { ...level3Options, libraryDirs: ['/nowhere'] });
    const issue = issues.find((i) => i.path === 'spec.tools[1]');
    expect(issue).toMatchObject({ rule: 'ref.unresolved', file: level3, line: 58 });
    expect(issue?.message).toBe(
      '"claw://tool/echo" (claw://local/tool/echo) is not in the local primitive library (looked for tool/echo.yaml in /nowhere)',
    );
  });

  it('throws a ManifestError carrying every issue from loadClaw', async () => {
    const error = await loadClaw(fixture('invalid', 'many-errors.yaml')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ManifestError);
    expect((error as ManifestError).code).toBe('manifest_invalid');
    expect((error as ManifestError).issues).toHaveLength(6);
    expect((error as ManifestError).message).toContain('6 manifest errors');
  });

  it('reports a missing root manifest as a value, not an exception', async () => {
    const { issues } = await checkClaw('/nonexistent/claw.yaml');
    expect(issues).toEqual([
      expect.objectContaining({
        rule: 'ref.missing-file',
        message: 'manifest file does not exist',
      }),
    ]);
  });
});

describe('loader: glob edge cases on disk', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-ckp-glob-'));
    await mkdir(path.join(dir, 'tools'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('warns (does not fail) when a glob matches nothing, and fails a version mismatch', async () => {
    await writeFile(
      path.join(dir, 'claw.yaml'),
      [
        'claw: "0.2.0"',
        'kind: Claw',
        'metadata: { name: "g" }',
        'spec:',
        '  identity: { inline: { personality: "p" } }',
        '  providers: [{ inline: { protocol: custom, endpoint: "local://x", model: m, auth: { type: none } } }]',
        '  tools: ["./tools/*.yaml"]',
        '',
      ].join('\n'),
    );
    const { claw, issues } = await checkClaw(path.join(dir, 'claw.yaml'));
    expect(claw?.tools).toEqual([]);
    expect(issues).toEqual([
      expect.objectContaining({
        severity: 'warning',
        rule: 'ref.missing-file',
        message: 'glob "./tools/*.yaml" matched no files',
      }),
    ]);
  });
});

describe('typed accessors for the runtime', () => {
  it('gives the provider chain in fallback order, policies as one rule list, sandbox per tool', async () => {
    const claw = await loadClaw(fixture('appendix-a', 'claw.yaml'));
    expect(primaryProvider(claw).name).toBe('primary-llm');
    expect(providerChain(claw).map((p) => p.name)).toEqual([
      'primary-llm',
      'fast-llm',
      'local-llm',
    ]);
    expect(policyRules(claw).map((rule) => `${rule.policy}/${rule.id}`)).toEqual([
      'security-policy/deny-destructive',
      'security-policy/approve-network',
      'security-policy/allow-readonly',
      'security-policy/allow-workspace',
      'security-policy/default-deny',
      'spending-policy/spending-limit',
    ]);
    const webFetch = claw.tools.find((tool) => tool.name === 'web-fetch');
    expect(webFetch && sandboxFor(claw, webFetch)?.name).toBe('standard-sandbox');
    expect(webFetch && toolCategory(webFetch)).toBe('network');
    expect(autonomyOf(claw)).toBe('supervised');
  });
});
