import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULES, type RuleId } from '../../../src/main/core/ckp/issues.js';
import { checkClaw } from '../../../src/main/core/ckp/loader.js';
import { fixture } from './fixtures.js';

interface Expected {
  rule: RuleId;
  path: string;
  message: string;
  /** The file the issue is in, relative to the fixture directory (default: the manifest). */
  file?: string;
  line?: number;
}

/** One invalid fixture per rule (several for the rules with several cases). */
const INVALID: Record<string, Expected> = {
  'yaml-syntax.yaml.txt': {
    rule: 'yaml.syntax',
    path: '(document)',
    message: 'Missing closing "quote',
  },
  'envelope-no-metadata.yaml': {
    rule: 'envelope.required',
    path: '(document)',
    message: 'metadata.name is required',
  },
  'protocol-major.yaml': {
    rule: 'envelope.protocol-version',
    path: 'claw',
    message: `claw "1.0.0" has another major version than this runtime's 0.3.0 (incompatible)`,
    line: 2,
  },
  'protocol-not-semver.yaml': {
    rule: 'envelope.protocol-version',
    path: 'claw',
    message: 'claw "0.2" is not a semver protocol version',
  },
  'kind-mismatch/claw.yaml': {
    rule: 'envelope.kind',
    path: 'kind',
    file: 'identity.yaml',
    message: 'spec.providers holds Provider primitives, but this document has kind Identity',
  },
  'name-invalid.yaml': {
    rule: 'envelope.name',
    path: 'metadata.name',
    message: 'name "my_bot!" must be 1-63 letters, digits or "-", starting with a letter or digit',
  },
  'version-invalid.yaml': {
    rule: 'envelope.version',
    path: 'metadata.version',
    message: 'version "v1" is not a semver',
  },
  'manifest-kind.yaml': {
    rule: 'manifest.kind',
    path: 'kind',
    message: 'a root manifest has kind: Claw, not "Identity"',
  },
  'identity-missing.yaml': {
    rule: 'manifest.identity',
    path: 'spec',
    message: 'spec.identity is required: a Claw has exactly one Identity',
  },
  'identity-list.yaml': {
    rule: 'manifest.identity',
    path: 'spec.identity',
    message: 'spec.identity takes exactly one entry, not a list',
  },
  'identity-glob/claw.yaml': {
    rule: 'manifest.identity',
    path: 'spec.identity',
    message: 'a Claw has exactly one Identity, but spec.identity yields 2 (alice.yaml, bob.yaml)',
  },
  'providers-missing.yaml': {
    rule: 'manifest.providers',
    path: 'spec',
    message: 'spec.providers is required: a Claw has at least one Provider',
  },
  'providers-empty.yaml': {
    rule: 'manifest.providers',
    path: 'spec.providers',
    message: 'spec.providers must contain at least one entry',
  },
  'duplicate-name.yaml': {
    rule: 'manifest.unique-name',
    path: 'spec.tools[1].inline',
    message:
      'duplicate Tool name "echo" (first declared in duplicate-name.yaml at spec.tools[0].inline)',
  },
  'duplicate-across-files/claw.yaml': {
    rule: 'manifest.unique-name',
    path: 'metadata.name',
    file: 'providers/b.yaml',
    message: 'duplicate Provider name "cloud" (first declared in providers/a.yaml)',
  },
  'ref-entry.yaml': {
    rule: 'ref.entry',
    path: 'spec.channels[0]',
    message: 'an entry is a file path, a glob, a claw:// URI or { inline: {...} }',
  },
  'missing-file.yaml': {
    rule: 'ref.missing-file',
    path: 'spec.sandbox',
    message: 'referenced file "sandbox/none-such.yaml" does not exist',
    line: 19,
  },
  'cycle/claw.yaml': {
    rule: 'ref.cycle',
    path: 'spec.tools[0]',
    message: '"./*.yaml" refers back to the manifest itself (claw.yaml)',
  },
  'fallback-cycle.yaml': {
    rule: 'ref.cycle',
    path: 'spec.providers[1].inline.fallback[0].provider_ref',
    message: 'provider fallback chain loops: a → b → a',
  },
  'introduced-0.3.0.yaml': {
    rule: 'envelope.introduced',
    path: 'spec.skills[0].inline.world_model_ref',
    message: 'world_model_ref needs claw "0.3.0"; this document declares "0.2.0"',
  },
  'world-model-dangling.yaml': {
    rule: 'ref.unresolved',
    path: 'spec.skills[0].inline.world_model_ref',
    message: 'no world-model named "weather" in this manifest (declared: environment-model)',
  },
  'unresolved-ref.yaml': {
    rule: 'ref.unresolved',
    path: 'spec.tools[0].inline.sandbox_ref',
    message: 'no sandbox named "jail" in this manifest (declared: none)',
  },
  'uri-grammar.yaml': {
    rule: 'uri.grammar',
    path: 'spec.tools[0]',
    message:
      'invalid claw URI "claw://tool/Web_Fetch": invalid name "Web_Fetch" (1-63 letters, digits, "-")',
  },
  'uri-registry.yaml': {
    rule: 'uri.registry',
    path: 'spec.tools[0]',
    message:
      '"claw://registry/standard-tools/shell@1.0.0" needs a CKP registry, and none is configured',
  },
  'uri-kind.yaml': {
    rule: 'uri.kind',
    path: 'spec.tools[0]',
    message: '"claw://provider/local" names a provider, but this slot holds Tool entries',
  },
  'schema-required.yaml': {
    rule: 'schema.required',
    path: 'spec.providers[0].inline.model',
    message: 'Provider requires "model"',
  },
  'schema-type.yaml': {
    rule: 'schema.type',
    path: 'spec.identity.inline.autonomy',
    message: 'expected one of "observer"|"supervised"|"autonomous"',
  },
  'schema-unknown-field.yaml': {
    rule: 'schema.unknown-field',
    path: 'spec.providers[0].inline.modle',
    message: 'unknown field "modle" in Provider',
  },
  'personality-empty.yaml': {
    rule: 'identity.personality',
    path: 'spec.identity.inline.personality',
    message: 'personality must be a non-empty string',
  },
  'auth-secret-ref.yaml': {
    rule: 'provider.auth-secret-ref',
    path: 'spec.providers[0].inline.auth',
    message: 'auth.secret_ref is required when auth.type is "bearer" (only "none" needs no secret)',
  },
  'access-allowlist-missing.yaml': {
    rule: 'channel.access-control',
    path: 'spec.channels[0].inline.access_control',
    message: 'access_control.mode "allowlist" requires access_control.allowed_ids',
  },
  'access-roles-in-allowlist.yaml': {
    rule: 'channel.access-control',
    path: 'spec.channels[0].inline.access_control.roles',
    message: 'access_control.roles is not allowed with mode "allowlist" (use allowed_ids)',
  },
  'access-pairing-missing.yaml': {
    rule: 'channel.access-control',
    path: 'spec.channels[0].inline.access_control',
    message: 'access_control.mode "pairing" requires access_control.pairing',
  },
  'access-allowed-ids-in-roles.yaml': {
    rule: 'channel.access-control',
    path: 'spec.channels[0].inline.access_control.allowed_ids',
    message: 'access_control.allowed_ids is not allowed with mode "role-based" (use roles)',
  },
  'pincer-field-wrong-type.yaml': {
    rule: 'channel.pincer',
    path: 'spec.channels[0].inline.x-pincer.prompt',
    message: 'x-pincer.prompt applies only to cron channels',
  },
  'swarm-tree.yaml': {
    rule: 'swarm.tree',
    path: 'spec.swarm.inline.x-pincer.reports_to.reviewer',
    message: 'worker "reviewer" reports to "chief", which is not a sub-leader of this swarm',
  },
  'swarm-pincer.yaml': {
    rule: 'swarm.pincer',
    path: 'spec.swarm.inline.x-pincer.rounds',
    message: 'x-pincer.rounds applies only to peer-to-peer swarms',
  },
  'trigger-cron-missing.yaml': {
    rule: 'channel.trigger',
    path: 'spec.channels[0].inline.trigger',
    message: 'a "cron" channel requires trigger.schedule',
  },
  'trigger-queue-no-block.yaml': {
    rule: 'channel.trigger',
    path: 'spec.channels[0].inline',
    message: 'a "queue" channel requires trigger.queue_name',
  },
  'trigger-wrong-field.yaml': {
    rule: 'channel.trigger',
    path: 'spec.channels[0].inline.trigger.schedule',
    message: 'trigger.schedule applies only to "cron" channels, not "imap"',
  },
  'trigger-on-chat-channel.yaml': {
    rule: 'channel.trigger',
    path: 'spec.channels[0].inline.trigger',
    message:
      'trigger applies only to event channels (cron, queue, imap, db-trigger), not "telegram"',
  },
  'tool-no-description.yaml': {
    rule: 'tool.description-or-mcp',
    path: 'spec.tools[0].inline',
    message: 'a tool without mcp_source requires description',
  },
  'tool-bad-input-schema.yaml': {
    rule: 'tool.input-schema',
    path: 'spec.tools[0].inline.input_schema',
    message:
      'input_schema is not a valid JSON Schema: at /type must be equal to one of the allowed values',
  },
  'tool-mcp-uri.yaml': {
    rule: 'tool.mcp-uri',
    path: 'spec.tools[0].inline.mcp_source.uri',
    message: 'the mcp:// scheme is reserved',
  },
  'policy-empty-rules.yaml': {
    rule: 'policy.rules',
    path: 'spec.policies[0].inline.rules',
    message: 'rules must contain at least one rule',
  },
  'memory-no-stores.yaml': {
    rule: 'memory.stores',
    path: 'spec.memory.inline.stores',
    message: 'stores must contain at least one store',
  },
  'telemetry-no-exporters.yaml': {
    rule: 'telemetry.exporters',
    path: 'spec.telemetry.inline.exporters',
    message: 'exporters must contain at least one exporter',
  },
  'telemetry-otlp-no-endpoint.yaml': {
    rule: 'telemetry.exporter-fields',
    path: 'spec.telemetry.inline.exporters[1]',
    message: 'exporter type "otlp" requires endpoint',
  },
  'telemetry-file-no-path.yaml': {
    rule: 'telemetry.exporter-fields',
    path: 'spec.telemetry.inline.exporters[0]',
    message: 'exporter type "file" requires path',
  },
  'telemetry-sampling.yaml': {
    rule: 'telemetry.sampling',
    path: 'spec.telemetry.inline.sampling.rate',
    message: 'sampling.rate must be between 0.0 and 1.0 inclusive, got 1.5',
  },
  'path-variable.yaml': {
    rule: 'path.variable',
    path: 'spec.memory.inline.stores[0].path',
    message: 'unknown path variable {user_name} (use {identity_name} or {tenant_id})',
  },
};

describe('invalid manifests: one fixture per rule, precise messages', () => {
  it.each(Object.entries(INVALID))('%s', async (name, expected) => {
    const file = fixture('invalid', name);
    const { claw, issues } = await checkClaw(file);
    expect(claw).toBeUndefined();
    const errors = issues.filter((issue) => issue.severity === 'error');
    expect(errors.map((e) => `${e.rule} ${e.path}`)).toContain(`${expected.rule} ${expected.path}`);
    const issue = errors.find((e) => e.rule === expected.rule && e.path === expected.path);
    expect(issue?.message).toContain(expected.message);
    expect(issue?.file).toBe(expected.file ? path.join(path.dirname(file), expected.file) : file);
    expect(issue?.line).toBeGreaterThan(0);
    if (expected.line) expect(issue?.line).toBe(expected.line);
  });

  it('covers every rule id with at least one invalid fixture', () => {
    const covered = new Set(Object.values(INVALID).map((e) => e.rule));
    const uncovered = Object.keys(RULES).filter((rule) => !covered.has(rule as RuleId));
    expect(uncovered).toEqual([]);
  });

  it('collects every error of a manifest, not only the first', async () => {
    const { issues } = await checkClaw(fixture('invalid', 'many-errors.yaml'));
    expect(issues.map((issue) => `${issue.rule} ${issue.path}`)).toEqual([
      'identity.personality spec.identity.inline.personality',
      'provider.auth-secret-ref spec.providers[0].inline.auth',
      'schema.required spec.channels[0].inline.auth',
      'channel.trigger spec.channels[0].inline',
      'tool.description-or-mcp spec.tools[0].inline',
      'policy.rules spec.policies[0].inline.rules',
    ]);
  });
});

describe('valid manifests', () => {
  it('accepts the minimal manifest of §6 at conformance level 1', async () => {
    const { claw, issues } = await checkClaw(fixture('minimal', 'claw.yaml'));
    expect(issues).toEqual([]);
    expect(claw?.conformance).toMatchObject({ level: 'level-1', label: 'Core' });
    expect(claw?.identity.spec).toMatchObject({ autonomy: 'observer' });
    expect(claw?.providers[0]?.spec.auth).toEqual({ type: 'none' });
  });

  it('reads 0.3.0: WorldModel primitives, world_model_ref by name and URI, richer Memory stores', async () => {
    const { claw, issues } = await checkClaw(fixture('valid', 'v0.3.0', 'claw.yaml'));
    expect(issues).toEqual([]);
    expect(claw?.protocol).toBe('0.3.0');
    expect(claw?.worldModels.map((w) => [w.name, w.spec.backend.type, w.uri])).toEqual([
      ['environment-model', 'tool', 'claw://local/world-model/environment-model@1.0.0'],
      ['forecaster', 'provider', 'claw://local/world-model/forecaster@1.0.0'],
      ['lab', 'custom', 'claw://local/world-model/lab@1.0.0'],
    ]);
    expect(claw?.worldModels[0]?.spec).toMatchObject({
      scope: 'agent-wide',
      planning: { fallback: 'conservative' },
      constraints: { policy_ref: 'planning-policy' },
    });
    expect(claw?.skills.map((s) => s.spec.world_model_ref)).toEqual([
      'environment-model',
      'claw://world-model/forecaster',
    ]);
    expect(claw?.memory?.spec.stores[0]).toMatchObject({
      role: 'episodic',
      forgetting: { strategy: 'decay' },
      salience: { enabled: true },
      confidence: { source_tracking: true },
    });
  });

  it('refuses a WorldModel whose backend, memory or policy reference dangles', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-wm-'));
    const manifest = path.join(dir, 'claw.yaml');
    await writeFile(
      manifest,
      [
        'claw: "0.3.0"',
        'kind: Claw',
        'metadata: { name: wm }',
        'spec:',
        '  identity: { inline: { personality: "Plans." } }',
        '  providers: [{ inline: { protocol: openai-compatible, endpoint: "http://127.0.0.1:9/v1", model: m, auth: { type: none } } }]',
        '  world_models:',
        '    - inline: { name: a, paradigm: simulator, backend: { type: tool, ref: no-such-tool }, memory_ref: nowhere, constraints: { policy_ref: none-here } }',
        '    - inline: { name: b, paradigm: implicit, backend: { type: provider, ref: no-such-provider } }',
        '    - inline: { name: c, paradigm: hybrid, backend: { type: tool } }',
        '',
      ].join('\n'),
    );
    const { claw, issues } = await checkClaw(manifest);
    expect(claw).toBeUndefined();
    expect(issues.map((i) => `${i.rule} ${i.path}`)).toEqual([
      'schema.required spec.world_models[2].inline.backend.ref',
      'ref.unresolved spec.world_models[0].inline.memory_ref',
      'ref.unresolved spec.world_models[0].inline.constraints.policy_ref',
      'ref.unresolved spec.world_models[0].inline.backend.ref',
      'ref.unresolved spec.world_models[1].inline.backend.ref',
    ]);
  });

  it('accepts the full example of Appendix A (level 2: no Swarm)', async () => {
    const { claw, issues } = await checkClaw(fixture('appendix-a', 'claw.yaml'));
    expect(issues).toEqual([]);
    expect(claw?.conformance).toMatchObject({ level: 'level-2', missingForNext: ['Swarm'] });
    expect(claw?.providers.map((p) => p.name)).toEqual(['primary-llm', 'fast-llm', 'local-llm']);
    expect(claw?.tools.map((t) => t.name)).toEqual([
      'web-search',
      'web-fetch',
      'file-read',
      'file-write',
      'shell',
      'calendar',
      'mcp-github',
    ]);
    expect(claw?.skills.map((s) => s.uri)).toEqual([
      'claw://local/skill/deep-research@2.0.0',
      'claw://local/skill/report-generation@1.0.0',
      'claw://local/skill/data-analysis@1.0.0',
    ]);
    expect(claw?.policies.map((p) => p.name)).toEqual(['security-policy', 'spending-policy']);
  });

  it('accepts a newer minor protocol with warnings, and drops the unknown fields', async () => {
    const { claw, issues } = await checkClaw(fixture('valid', 'newer-minor.yaml'));
    expect(claw?.protocol).toBe('0.4.0');
    expect(claw).toBeDefined();
    expect(issues.map((i) => `${i.severity} ${i.rule} ${i.path}`)).toEqual([
      'warning envelope.protocol-version claw',
      'warning schema.unknown-field spec.identity.inline.mood',
    ]);
    expect(claw?.identity.spec).not.toHaveProperty('mood');
    expect(claw?.warnings).toHaveLength(2);
  });
});
