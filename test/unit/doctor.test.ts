import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkModels, checkNode, findElectronBinary } from '../../src/main/core/doctor/checks.js';
import { formatDoctorReport } from '../../src/main/core/doctor/index.js';
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
  it('fails Node versions older than 20.19', () => {
    expect(checkNode('20.18.3').status).toBe('fail');
    expect(checkNode('20.19.0').status).toBe('ok');
    expect(checkNode('22.1.0').status).toBe('ok');
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
