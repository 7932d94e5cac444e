import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import {
  initUserManifest,
  loadActiveClaw,
  ManifestExistsError,
  resolveActiveManifest,
} from '../../../src/main/core/ckp/default-manifest.js';
import { ManifestError } from '../../../src/main/core/ckp/issues.js';
import { loadClaw } from '../../../src/main/core/ckp/loader.js';
import { isLocalEngineProvider, policyRules } from '../../../src/main/core/ckp/resolved.js';
import {
  applyEdits,
  editManifest,
  upsertInlinePrimitive,
} from '../../../src/main/core/ckp/write-back.js';
import { RESOURCES } from './fixtures.js';

let dataDir = '';
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-ckp-data-'));
});
afterEach(async () => rm(dataDir, { recursive: true, force: true }));
const places = () => ({ dataDir, resourcesDir: RESOURCES });

describe('the shipped default agent (resources/claw.yaml)', () => {
  it('is a valid level-2 manifest: local Qwen primary, built-in tools, bwrap sandbox, SQLite memory', async () => {
    const { active, claw } = await loadActiveClaw(places());
    expect(active.origin).toBe('default');
    expect(claw.warnings).toEqual([]);
    expect(claw.conformance.level).toBe('level-2');
    const [local] = claw.providers;
    expect(local && isLocalEngineProvider(local)).toBe(true);
    expect(local?.spec).toMatchObject({ model: 'qwen2.5-7b-instruct', auth: { type: 'none' } });
    expect(claw.identity.spec.autonomy).toBe('supervised');
    expect(claw.identity.spec.context_files).toEqual({
      soul: path.join(dataDir, 'SOUL.md'),
      user: path.join(dataDir, 'USER.md'),
    });
    expect(claw.tools.map((t) => t.name)).toEqual([
      'read-file',
      'list-directory',
      'write-file',
      'shell',
      'fetch-url',
    ]);
    expect(claw.sandbox?.spec).toMatchObject({
      level: 'process',
      capabilities: { network: { mode: 'deny' } },
    });
    expect(claw.sandbox?.spec.capabilities?.filesystem?.mount_paths).toEqual([
      { path: path.join(dataDir, 'workspace', 'pincer/'), permissions: 'rw' },
    ]);
    expect(claw.memory?.spec.stores.map((s) => s.backend)).toEqual([
      'sqlite',
      'sqlite',
      'filesystem',
    ]);
    // Deny by default: the last rule denies everything not matched before it.
    expect(policyRules(claw).at(-1)).toMatchObject({
      id: 'default-deny',
      action: 'deny',
      scope: 'all',
    });
  });

  it('round-trips: load, write through the YAML Document, load again equal, comments kept', async () => {
    const original = await readFile(path.join(RESOURCES, 'claw.yaml'), 'utf8');
    const copy = path.join(dataDir, 'claw.yaml');
    await writeFile(copy, parseDocument(original).toString());
    const written = await readFile(copy, 'utf8');
    expect(written).toContain("# Pincer's default agent");
    expect(written).toContain('# First matching rule wins');
    expect(written).toContain('#     name: "openai"');
    const before = await loadClaw(path.join(RESOURCES, 'claw.yaml'), { contextDir: dataDir });
    const after = await loadClaw(copy, { contextDir: dataDir });
    const strip = (claw: typeof before) =>
      JSON.parse(
        JSON.stringify({ ...claw, file: '', dir: '' }, (key, value) =>
          key === 'source' ? undefined : value,
        ),
      );
    expect(strip(after)).toEqual(strip(before));
  });
});

describe('which manifest is in force', () => {
  it('prefers an explicit file, then the data dir claw.yaml, then the shipped default', async () => {
    expect(resolveActiveManifest(places())).toMatchObject({
      origin: 'default',
      file: path.join(RESOURCES, 'claw.yaml'),
    });
    await initUserManifest(places());
    expect(resolveActiveManifest(places())).toEqual({
      origin: 'user',
      file: path.join(dataDir, 'claw.yaml'),
      contextDir: dataDir,
    });
    expect(resolveActiveManifest(places(), 'x/claw.yaml')).toEqual({
      origin: 'explicit',
      file: path.resolve('x/claw.yaml'),
      contextDir: path.resolve('x'),
    });
  });

  it('init writes the commented starter and the context templates, and never overwrites without force', async () => {
    const result = await initUserManifest(places());
    expect(result.seeded).toEqual([path.join(dataDir, 'SOUL.md'), path.join(dataDir, 'USER.md')]);
    const mine = '# my own manifest\n';
    await writeFile(result.manifest, mine);
    await writeFile(path.join(dataDir, 'SOUL.md'), 'my soul');
    await expect(initUserManifest(places())).rejects.toBeInstanceOf(ManifestExistsError);
    expect(await readFile(result.manifest, 'utf8')).toBe(mine);
    await initUserManifest(places(), { force: true });
    expect(await readFile(result.manifest, 'utf8')).toContain("# Pincer's default agent");
    // --force replaces the manifest only: SOUL.md holds the user's words.
    expect(await readFile(path.join(dataDir, 'SOUL.md'), 'utf8')).toBe('my soul');
  });
});

describe('write-back of settings into the manifest', () => {
  let file = '';
  beforeEach(async () => {
    file = path.join(dataDir, 'claw.yaml');
    await copyFile(path.join(RESOURCES, 'claw.yaml'), file);
  });

  it('applies an edit, keeps the comments, and the result loads', async () => {
    const claw = await editManifest(file, [
      { path: ['spec', 'identity', 'inline', 'autonomy'], value: 'observer' },
    ]);
    expect(claw.identity.spec.autonomy).toBe('observer');
    const text = await readFile(file, 'utf8');
    expect(text).toContain('# observer: no tools | supervised');
    expect(text).toContain('autonomy: observer');
  });

  it('adds a cloud provider as an inline primitive, then replaces it by name', async () => {
    const provider = {
      name: 'openai',
      protocol: 'openai-compatible',
      endpoint: 'https://api.openai.com/v1',
      model: 'gpt-5-mini',
      auth: { type: 'bearer', secret_ref: 'openai-api-key' },
    };
    let claw = await upsertInlinePrimitive(file, 'providers', provider);
    expect(claw.providers.map((p) => p.name)).toEqual(['local', 'openai']);
    claw = await upsertInlinePrimitive(file, 'providers', { ...provider, model: 'gpt-5' });
    expect(claw.providers.map((p) => `${p.name}:${p.spec.model}`)).toEqual([
      'local:qwen2.5-7b-instruct',
      'openai:gpt-5',
    ]);
  });

  it('rejects an edit that breaks the manifest and leaves the file byte for byte as it was', async () => {
    const before = await readFile(file, 'utf8');
    const error = await upsertInlinePrimitive(file, 'providers', {
      name: 'cloud',
      protocol: 'openai-compatible',
      endpoint: 'https://api.example.com/v1',
      model: 'm',
      auth: { type: 'bearer' },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ManifestError);
    expect((error as ManifestError).issues).toEqual([
      expect.objectContaining({
        rule: 'provider.auth-secret-ref',
        file,
        path: 'spec.providers[1].inline.auth',
      }),
    ]);
    expect(await readFile(file, 'utf8')).toBe(before);
    const leftovers = (await import('node:fs'))
      .readdirSync(dataDir)
      .filter((n) => n.endsWith('.tmp'));
    expect(leftovers).toEqual([]);
  });

  it('applyEdits deletes keys and keeps unrelated comments', () => {
    const text = 'a: 1 # one\nb: 2 # two\n';
    expect(applyEdits(text, [{ path: ['b'], delete: true }])).toBe('a: 1 # one\n');
  });
});
