import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repoRoot = path.resolve(import.meta.dirname, '../..');
const cli = path.join(repoRoot, 'dist/cli.js');

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

let home = '';

/** Runs the BUILT cli (dist/cli.js, as `npx pincer` does) under plain Node. */
async function pincer(...args: string[]): Promise<CliRun> {
  try {
    const { stdout, stderr } = await run(process.execPath, [cli, ...args], {
      env: { ...process.env, PINCER_HOME: home },
      timeout: 30_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

beforeAll(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'pincer-cli-'));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('pincer CLI (built dist/cli.js)', () => {
  it('prints its version', async () => {
    const { version } = (await import('../../package.json', { with: { type: 'json' } })).default;
    const result = await pincer('--version');
    expect(result).toMatchObject({ code: 0 });
    expect(result.stdout.trim()).toBe(version);
  });

  it('starts --version and --help without loading a package with native code', async () => {
    // Preloads that record every package the process imports or requires (bare specifiers),
    // and every addon it opens.
    const record =
      "(what) => require('node:fs').appendFileSync(process.env.LOAD_LOG, what + '\\n')";
    await writeFile(
      path.join(home, 'record-hooks.cjs'),
      `const record = ${record};
exports.resolve = async (specifier, context, next) => {
  if (!/^(\\.|\\/|node:|file:|data:)/.test(specifier)) record(specifier);
  return next(specifier, context);
};
`,
    );
    await writeFile(
      path.join(home, 'record-loads.cjs'),
      `const record = ${record};
const Module = require('node:module');
Module.register(require('node:url').pathToFileURL(${JSON.stringify(path.join(home, 'record-hooks.cjs'))}));
const load = Module._load;
Module._load = function (request, ...rest) {
  if (!/^(\\.|\\/|node:)/.test(request)) record(request);
  return load.call(this, request, ...rest);
};
const open = process.dlopen;
process.dlopen = function (module, file, ...rest) {
  record(file);
  return open.call(this, module, file, ...rest);
};
`,
    );
    const native = /better-sqlite3|sqlite-vec|node-llama-cpp|keytar|\.node$/m;
    for (const args of [['--version'], ['--help'], ['runs', 'list']]) {
      const log = path.join(home, `loads-${args.join('-')}.log`);
      await writeFile(log, '');
      await run(
        process.execPath,
        ['--require', path.join(home, 'record-loads.cjs'), cli, ...args],
        {
          env: { ...process.env, PINCER_HOME: home, LOAD_LOG: log },
          timeout: 30_000,
        },
      );
      const loaded = await readFile(log, 'utf8');
      // `runs list` reads the profile database: the check itself must be able to see a load.
      if (args[0] === 'runs') expect(loaded).toMatch(/better-sqlite3/);
      else expect(loaded).not.toMatch(native);
    }
  });

  it('lists every command in --help', async () => {
    const result = await pincer('--help');
    expect(result.code).toBe(0);
    for (const command of [
      'chat',
      'run',
      'serve',
      'gateway',
      'daemon',
      'channels',
      'models',
      'secrets',
      'skills',
      'audit',
      'doctor',
      'manifest',
    ]) {
      expect(result.stdout).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
    }
    expect(result.stdout).toContain(home);
  });

  it('rejects an unknown command with usage exit code 2', async () => {
    const result = await pincer('frobnicate');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown command 'frobnicate'");
  });

  it('serve without a transport is a usage error naming the transports (exit code 2)', async () => {
    const result = await pincer('serve');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('choose a transport: --stdio, --http PORT or --ws PORT');
    expect(result.stdout).toBe('');
  });

  it('doctor --json reports every check with the data dir from PINCER_HOME', async () => {
    await mkdir(path.join(home, 'models'), { recursive: true });
    await writeFile(path.join(home, 'models', 'tiny.gguf'), 'GGUF');
    const result = await pincer('doctor', '--json');
    const report = JSON.parse(result.stdout) as {
      dataDir: string;
      status: string;
      checks: { id: string; status: string; summary: string; details?: { files?: string[] } }[];
    };
    expect(report.dataDir).toBe(home);
    expect(report.checks.map((check) => check.id)).toEqual([
      'node',
      'data-dir',
      'electron',
      'native-modules',
      'keychain',
      'secrets',
      'sandbox',
      'models',
      'gpu',
    ]);
    expect(report.checks.find((check) => check.id === 'models')?.details?.files).toEqual([
      'tiny.gguf',
    ]);
    // This Node runs the CLI; past its line's end of life (Node 20 since 2026-04-30) it warns.
    const node = report.checks.find((check) => check.id === 'node');
    expect(['ok', 'warn']).toContain(node?.status);
    expect(node?.summary).toContain(process.versions.node);
    expect(result.code).toBe(report.status === 'fail' ? 1 : 0);
  });

  it('doctor prints a readable table', async () => {
    const result = await pincer('doctor');
    expect(result.stdout).toMatch(/^Pincer \d+\.\d+\.\d+ on /);
    expect(result.stdout).toMatch(/\[(ok {2}|warn|FAIL)\] Tool sandbox/);
  });
});

describe('pincer gateway (built dist/cli.js)', () => {
  it('prints the URL with the token once, serves the UI, and stops on SIGINT', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [cli, 'gateway'], {
      env: { ...process.env, PINCER_HOME: home },
    });
    let stdout = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /Open: (http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]+)/.exec(stdout);
        if (match?.[1]) resolve(match[1]);
      });
      child.on('exit', (code) => reject(new Error(`gateway exited early (${code}): ${stdout}`)));
    });
    const response = await fetch(url.replace(/#.*/, ''));
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<div id="root">');
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(stdout.match(/token=/g)).toHaveLength(1);
  });

  it('rejects a bad port with usage exit code 2', async () => {
    const result = await pincer('gateway', '--port', '99999');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--port must be 0-65535');
  });
});
