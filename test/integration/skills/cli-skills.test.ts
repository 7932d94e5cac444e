/** `pincer skills ...` in-process against a temp data dir. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { repoRoot, runCliInProcess } from '../../support/cli-run.js';

let dir = '';
let dataDir = '';

beforeAll(async () => {
  vi.stubEnv('PINCER_EMBEDDING_MODEL', '');
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-skillscli-'));
  dataDir = path.join(dir, 'data');
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await rm(dir, { recursive: true, force: true });
});

const pincer = (...argv: string[]) => runCliInProcess(argv, { dataDir, appDir: repoRoot });

describe('pincer skills', () => {
  it('add (SKILL.md folder and CKP YAML), list, search, disable/enable; bad files refused', async () => {
    const folder = path.join(dir, 'tidy');
    await mkdir(folder);
    await writeFile(
      path.join(folder, 'SKILL.md'),
      '---\nname: tidy-downloads\ndescription: Sort the downloads folder by file type\nversion: 1.0.0\n---\nList files, group by extension.\n',
    );
    const yaml = path.join(dir, 'report.yaml');
    await writeFile(
      yaml,
      'claw: "0.2.0"\nkind: Skill\nmetadata:\n  name: report-generation\n  version: 1.0.0\nspec:\n  description: Turn notes into a project report\n  tools_required: [fs/read]\n  instruction: Read the notes, write the report.\n',
    );
    expect((await pincer('skills', 'add', folder)).stdout).toMatch(
      /^added tidy-downloads v1\.0\.0 \(unverified\) from .*SKILL\.md/,
    );
    expect((await pincer('skills', 'add', yaml, '--trust', 'official')).stdout).toContain(
      'added report-generation v1.0.0 (official)',
    );

    const list = await pincer('skills', 'list');
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/report-generation\s+enabled\s+official/);
    expect(list.stdout).toMatch(/tidy-downloads\s+enabled\s+unverified/);
    expect((await pincer('skills', 'search', 'downloads')).stdout).toMatch(/^tidy-downloads /);

    expect((await pincer('skills', 'disable', 'tidy-downloads')).code).toBe(0);
    expect((await pincer('skills', 'list')).stdout).toMatch(/tidy-downloads\s+disabled/);
    expect((await pincer('skills', 'enable', 'tidy-downloads')).stdout).toBe(
      'enabled tidy-downloads\n',
    );
    const missing = await pincer('skills', 'enable', 'nope');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no skill named "nope"');

    const other = path.join(dir, 'other');
    await mkdir(other);
    await writeFile(
      path.join(other, 'SKILL.md'),
      '---\nname: tidy-downloads\ndescription: x\n---\nbody\n',
    );
    const dup = await pincer('skills', 'add', other);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain('a skill named "tidy-downloads" is already registered');
    await writeFile(
      path.join(other, 'SKILL.md'),
      '---\nname: tidy\ndescription: "unclosed\n---\nbody\n',
    );
    const bad = await pincer('skills', 'add', other);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/SKILL\.md: not valid YAML/);
    expect((await pincer('skills', 'add', path.join(dir, 'absent'))).code).toBe(2);
    expect((await pincer('skills', 'list', '--json')).stdout).toContain('"contentHash"');
  });
});
