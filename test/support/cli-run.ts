import { spawn } from 'node:child_process';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { runCli } from '../../src/main/cli/program.js';

export const repoRoot = path.resolve(import.meta.dirname, '../..');
export const builtCli = path.join(repoRoot, 'dist/cli.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the BUILT cli (npm run build) with `input` piped to stdin (not a TTY). */
export function runBuiltCli(
  args: string[],
  options: { env: Record<string, string | undefined>; input?: string; timeoutMs?: number },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtCli, ...args], {
      env: options.env as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** Runs the real commander program in-process (source, not the build), capturing its output. */
export async function runCliInProcess(
  argv: string[],
  places: { dataDir: string; appDir?: string },
): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk) => {
    out += chunk;
  });
  stderr.on('data', (chunk) => {
    err += chunk;
  });
  const code = await runCli(argv, {
    dataDir: places.dataDir,
    appDir: places.appDir ?? repoRoot,
    stdout,
    stderr,
  });
  return { code, stdout: out, stderr: err };
}
