/**
 * The product suite's harness: every test runs what a user runs, the BUILT `dist/cli.js` (or
 * `npm start`'s browser fallback over `out/`), as a child process in a fresh data dir and HOME,
 * against the scripted model on 127.0.0.1. `Product` tracks what a test started and removes it
 * afterwards: `const product = new Product(); afterEach(() => product.cleanUp());`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type ScriptedModel, startScriptedModel } from './scripted-model.js';

// Not imported from test/support/cli-run.ts and daemon-process.ts: those load the CLI's and the
// agent's source into the test worker, seconds per file that a suite of the bundle never uses.
export const repoRoot = path.resolve(import.meta.dirname, '../../..');
export const builtCli = path.join(repoRoot, 'dist/cli.js');

export type Env = Record<string, string | undefined>;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Waits for a condition; the deadline only catches a hang. */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  detail: () => string = () => '',
  timeoutMs = 90_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen:\n${detail()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface Scratch {
  /** The data dir and HOME: nothing of the machine's own profile is read. */
  dir: string;
  env: Env;
  model: ScriptedModel;
}

export interface Started {
  child: ChildProcess;
  exited: Promise<number | null>;
  /** stdout and stderr as printed so far. */
  output(): string;
  stdout(): string;
  /** Resolves with the first match of `pattern` in the output (fails if the process exits first). */
  waitFor(pattern: RegExp | string, timeoutMs?: number): Promise<RegExpExecArray>;
  /** `work`, or a failure with the output if the process exits first. */
  whileAlive<T>(work: Promise<T>): Promise<T>;
}

export class Product {
  private readonly children: ChildProcess[] = [];
  private readonly dirs: string[] = [];
  private readonly models: ScriptedModel[] = [];
  private readonly closers: Array<() => Promise<unknown>> = [];

  /** A fresh data dir and HOME, and a scripted model of its own. */
  async scratch(name: string, extraEnv: Env = {}): Promise<Scratch> {
    const dir = await this.tempDir(`pincer-product-${name}-`);
    const model = await startScriptedModel();
    this.models.push(model);
    const env: Env = {
      PATH: process.env.PATH,
      HOME: dir,
      PINCER_HOME: dir,
      PINCER_KEYCHAIN: 'off',
      // A display would send `npm start` to Electron, which is never launched here.
      DISPLAY: undefined,
      ...extraEnv,
    };
    return { dir, env, model };
  }

  async tempDir(prefix: string): Promise<string> {
    const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
    this.dirs.push(dir);
    return dir;
  }

  /** Runs something the test must stop or close afterwards. */
  onCleanUp(close: () => Promise<unknown>): void {
    this.closers.push(close);
  }

  /** The built CLI to completion, stdin piped from `input`. */
  run(args: string[], env: Env, input = '', timeoutMs = 120_000): Promise<CliResult> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [builtCli, ...args], {
        cwd: repoRoot,
        env: env as NodeJS.ProcessEnv,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code: code ?? -1, stdout, stderr });
      });
      child.stdin.end(input);
    });
  }

  /** The built CLI (or another script of the repository) left running. */
  start(
    args: string[],
    env: Env,
    options: { script?: string; stdin?: 'ignore' | 'pipe' } = {},
  ): Started {
    const child = spawn(process.execPath, [options.script ?? builtCli, ...args], {
      cwd: repoRoot,
      env: env as NodeJS.ProcessEnv,
      stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'],
    });
    return this.track(child);
  }

  /** Collects the output of a process the test spawned itself and stops it afterwards. */
  track(child: ChildProcess): Started {
    this.children.push(child);
    let output = '';
    let stdout = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const waitFor = async (pattern: RegExp | string, timeoutMs = 90_000) => {
      const regex = typeof pattern === 'string' ? new RegExp(escapeRegExp(pattern)) : pattern;
      let match: RegExpExecArray | null = null;
      await until(
        `${regex} in the output`,
        () => {
          match = regex.exec(output);
          if (!match && child.exitCode !== null) {
            throw new Error(`exited ${child.exitCode} before ${regex}:\n${output}`);
          }
          return match !== null;
        },
        () => output,
        timeoutMs,
      );
      return match as unknown as RegExpExecArray;
    };
    const whileAlive = <T>(work: Promise<T>) =>
      Promise.race([
        work,
        exited.then((code) => {
          throw new Error(`exited ${code} while a test waited on it:\n${output}`);
        }),
      ]);
    return { child, exited, output: () => output, stdout: () => stdout, waitFor, whileAlive };
  }

  async cleanUp(): Promise<void> {
    for (const close of this.closers.splice(0).reverse()) await close().catch(() => undefined);
    for (const child of this.children.splice(0)) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      // SIGTERM first: `npm start` passes it on to the gateway it started, which SIGKILL would orphan.
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await gone;
      clearTimeout(timer);
    }
    for (const model of this.models.splice(0)) await model.close();
    for (const dir of this.dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The reply of the newest completed run whose goal is `goal`, as the built CLI reads it from the
 * data dir (`pincer runs list --json`, then `runs show`); undefined while there is none.
 */
export async function replyInStore(
  product: Product,
  env: Env,
  goal: string,
): Promise<string | undefined> {
  const listed = await product.run(['runs', 'list', '--json'], env);
  if (listed.code !== 0) throw new Error(`runs list: ${listed.stderr}`);
  const runs = JSON.parse(listed.stdout) as Array<{ id: string; goal: string; outcome: string }>;
  const run = runs.find((one) => one.goal === goal && one.outcome === 'completed');
  if (!run) return undefined;
  const shown = await product.run(['runs', 'show', run.id, '--json'], env);
  const { messages } = JSON.parse(shown.stdout) as {
    messages: Array<{ message: { role: string; content: Array<{ type: string; text?: string }> } }>;
  };
  const reply = messages.filter((m) => m.message.role === 'assistant').at(-1);
  return reply?.message.content.map((block) => block.text ?? '').join('');
}
