import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkModels, findElectronBinary } from '../../src/main/core/doctor/checks.js';
import { formatDoctorReport } from '../../src/main/core/doctor/index.js';
import { checkNode, TESTED_NODE_MAJORS } from '../../src/main/core/doctor/node-check.js';
import { checkSandbox } from '../../src/main/core/doctor/sandbox-check.js';

let scratch = '';
beforeEach(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'pincer-doctor-'));
});
afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** A fake app directory with an installed `electron` package, optionally with its binary. */
async function appWithElectron(withBinary: boolean): Promise<string> {
  const pkg = path.join(scratch, 'node_modules', 'electron');
  await mkdir(path.join(pkg, 'dist'), { recursive: true });
  await writeFile(path.join(pkg, 'package.json'), '{"name":"electron","main":"index.js"}');
  // Requiring the real package would download the binary: the check must never load index.js.
  await writeFile(path.join(pkg, 'index.js'), 'throw new Error("index.js must not be loaded")');
  if (withBinary) {
    await writeFile(path.join(pkg, 'path.txt'), 'electron');
    await writeFile(path.join(pkg, 'dist', 'electron'), '#!/bin/sh\n');
    await chmod(path.join(pkg, 'dist', 'electron'), 0o755);
  }
  return scratch;
}

describe('doctor checks', () => {
  it('fails Node versions too old to load the CLI', () => {
    const day = new Date('2026-01-15T12:00:00Z');
    expect(checkNode('18.20.0', day, undefined).status).toBe('fail');
    expect(checkNode('20.18.3', day, undefined).status).toBe('fail');
    expect(checkNode('22.11.0', day, undefined).status).toBe('fail');
    expect(checkNode('20.19.0', day, undefined).status).toBe('ok');
    expect(checkNode('22.12.0', day, undefined).status).toBe('ok');
  });

  it('warns on a Node line past its end of life, naming the date and the fix', () => {
    const check = checkNode('20.20.2', new Date('2026-11-28T09:00:00Z'), undefined);
    expect(check.status).toBe('warn');
    expect(check.summary).toBe(
      'Node 20.20.2 reached end of life on 2026-04-30 and gets no security fixes: install Node 22 LTS',
    );
    // The day before its end it was still fine.
    expect(checkNode('20.20.2', new Date('2026-04-30T12:00:00Z'), undefined).status).toBe('ok');
  });

  it('is content with the tested LTS lines and warns on an untested one', () => {
    const day = new Date('2026-11-28T09:00:00Z');
    expect(TESTED_NODE_MAJORS).toEqual([22]);
    expect(checkNode('22.23.3', day, undefined)).toMatchObject({
      status: 'ok',
      summary: 'Node 22.23.3 (LTS, supported until 2027-04-30)',
    });
    expect(checkNode('24.9.0', day, undefined).summary).toContain(
      'not a line Pincer is tested on (20, 22)',
    );
    const newer = checkNode('26.10.0', day, undefined);
    expect(newer.status).toBe('warn');
    expect(newer.summary).toContain('not a line Pincer is tested on (20, 22)');
    expect(checkNode('25.1.0', day, undefined).summary).toContain('end of life on 2026-06-01');
  });

  it("leaves Electron's own Node alone", () => {
    const check = checkNode('20.18.0', new Date('2026-11-28T09:00:00Z'), '39.0.0');
    expect(check).toMatchObject({ status: 'ok', summary: 'Node 20.18.0 (Electron 39.0.0)' });
  });

  it('finds an Electron binary only when it was downloaded', async () => {
    expect(await findElectronBinary(await appWithElectron(false))).toBeNull();
    await rm(path.join(scratch, 'node_modules'), { recursive: true });
    const found = await findElectronBinary(await appWithElectron(true));
    expect(found).toBe(path.join(scratch, 'node_modules', 'electron', 'dist', 'electron'));
  });

  it('reports no Electron when the package is not installed at all', async () => {
    expect(await findElectronBinary(scratch)).toBeNull();
  });

  it('lists GGUF files in the models folder and nothing else', async () => {
    expect((await checkModels(scratch)).status).toBe('warn');
    await mkdir(path.join(scratch, 'models'));
    await writeFile(path.join(scratch, 'models', 'b.GGUF'), '');
    await writeFile(path.join(scratch, 'models', 'a.gguf'), '');
    await writeFile(path.join(scratch, 'models', 'notes.txt'), '');
    const check = await checkModels(scratch);
    expect(check.status).toBe('ok');
    expect(check.details?.files).toEqual(['a.gguf', 'b.GGUF']);
  });

  it('names the sandbox backend it found', async () => {
    const check = await checkSandbox();
    expect(['bwrap', 'seatbelt', 'process']).toContain(check.details?.backend);
    expect(check.status === 'ok').toBe(check.details?.backend !== 'process');
  });

  it('formats a report with one aligned line per check', () => {
    const text = formatDoctorReport({
      pincer: '1.2.3',
      platform: 'linux',
      arch: 'x64',
      dataDir: '/d',
      status: 'warn',
      checks: [
        { id: 'a', label: 'Short', status: 'ok', summary: 'fine' },
        { id: 'b', label: 'Much longer', status: 'fail', summary: 'broken' },
      ],
    });
    expect(text.split('\n')).toEqual([
      'Pincer 1.2.3 on linux/x64',
      '  [ok  ] Short        fine',
      '  [FAIL] Much longer  broken',
    ]);
  });
});
