import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCliInProcess } from '../../support/cli-run.js';
import { fixture, REPO } from './fixtures.js';

let dataDir = '';
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-ckp-cli-'));
});
afterEach(async () => rm(dataDir, { recursive: true, force: true }));

const pincer = (...argv: string[]) => runCliInProcess(argv, { dataDir, appDir: REPO });

describe('pincer manifest', () => {
  it('validate accepts Appendix A with exit 0', async () => {
    const result = await pincer('manifest', 'validate', fixture('appendix-a', 'claw.yaml'));
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('valid CKP 0.2.0 manifest, conformance level-2 (Standard)');
    expect(result.stderr).toBe('');
  });

  it('validate lists every error with file:line:col, path and rule, exit 1', async () => {
    const file = fixture('invalid', 'many-errors.yaml');
    const result = await pincer('manifest', 'validate', file);
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(6);
    expect(lines[0]).toMatch(
      /many-errors\.yaml:10:20: spec\.identity\.inline\.personality: personality must be a non-empty string \[identity\.personality\]$/,
    );
    expect(result.stdout).toContain('6 errors');
  });

  it('validate --json reports errors and warnings as data', async () => {
    const result = await pincer(
      'manifest',
      'validate',
      '--json',
      fixture('invalid', 'auth-secret-ref.yaml'),
    );
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as {
      valid: boolean;
      errors: { rule: string; line: number }[];
    };
    expect(report.valid).toBe(false);
    expect(report.errors).toEqual([
      expect.objectContaining({ rule: 'provider.auth-secret-ref', line: 17 }),
    ]);
  });

  it('show prints the resolved manifest with canonical URIs, secrets as refs and the conformance level', async () => {
    const result = await pincer('manifest', 'show', fixture('appendix-a', 'claw.yaml'));
    expect(result.code).toBe(0);
    const shown = parse(result.stdout) as {
      conformance: { level: string };
      secrets: { uri: string; secret_ref: string }[];
      spec: { tools: { uri: string; source: string }[]; providers: { spec: { auth: unknown } }[] };
    };
    expect(shown.conformance.level).toBe('level-2');
    expect(shown.spec.tools.map((t) => t.uri)).toContain('claw://local/tool/mcp-github@1.0.0');
    expect(shown.spec.tools.find((t) => t.uri.includes('file-write'))?.source).toBe(
      'tools/file-ops.yaml (document 2)',
    );
    expect(shown.secrets).toContainEqual({
      uri: 'claw://local/provider/primary-llm@1.0.0',
      secret_ref: 'ANTHROPIC_API_KEY',
    });
    expect(shown.spec.providers[0]?.spec.auth).toEqual({
      type: 'bearer',
      secret_ref: 'ANTHROPIC_API_KEY',
    });
  });

  it('show without a file uses the manifest in force (the default agent here)', async () => {
    const result = await pincer('manifest', 'show', '--json');
    const shown = JSON.parse(result.stdout) as { origin: string; metadata: { name: string } };
    expect(shown).toMatchObject({ origin: 'default', metadata: { name: 'pincer' } });
  });

  it('init writes the starter into the data dir and refuses to overwrite without --force', async () => {
    expect((await pincer('manifest', 'init')).code).toBe(0);
    const file = path.join(dataDir, 'claw.yaml');
    await writeFile(file, '# edited by hand\n');
    const again = await pincer('manifest', 'init');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already exists; pass --force to overwrite it');
    expect(await readFile(file, 'utf8')).toBe('# edited by hand\n');
    expect((await pincer('manifest', 'init', '--force')).code).toBe(0);
    expect((await pincer('manifest', 'validate')).code).toBe(0);
  });
});

describe('pincer manifest as a real child process (tsx, from source)', () => {
  it('rejects an invalid fixture with exit code 1 and the precise message on stderr', async () => {
    const run = promisify(execFile);
    const tsx = path.join(REPO, 'node_modules', '.bin', 'tsx');
    const file = fixture('invalid', 'uri-registry.yaml');
    const failure = await run(
      tsx,
      [path.join(REPO, 'src/main/cli.ts'), 'manifest', 'validate', file],
      {
        env: { ...process.env, PINCER_HOME: dataDir },
      },
    ).catch((error: { code: number; stderr: string }) => error);
    expect('code' in failure && failure.code).toBe(1);
    expect('stderr' in failure ? failure.stderr : '').toContain(
      'spec.tools[0]: "claw://registry/standard-tools/shell@1.0.0" needs a CKP registry, and none is configured',
    );
  });
});
