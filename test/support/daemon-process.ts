/**
 * A real `pincer daemon` (the built CLI) for the daemon suites: a fresh data directory, a
 * vendor server on 127.0.0.1 playing the model, the manifest with the given channels, and every
 * process it or the test started killed after each test (`cleanUp` in `afterEach`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  SIGNATURE_HEADER,
  signWebhook,
  TIMESTAMP_HEADER,
} from '../../src/main/core/channels/webhook.js';
import { startVendorServer, type VendorServer } from '../fixtures/vendor-server.js';
import { writeManifest } from './channel-agent.js';
import { builtCli, runBuiltCli } from './cli-run.js';

export type Env = Record<string, string | undefined>;

export function requireBuiltCli(): void {
  if (!existsSync(builtCli)) throw new Error(`${builtCli} is missing: run npm run build first`);
}

/** Waits for a condition (of what was printed, of the daemon's state); the deadline only catches a hang. */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  detail: () => string = () => '',
  timeoutMs = 45_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen:\n${detail()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A webhook channel on `port`, its secret in HOOK_SECRET. */
export const webhookChannel = (port: number) => ({
  name: 'hook',
  type: 'webhook',
  transport: 'webhook',
  auth: { secret_ref: 'HOOK_SECRET' },
  'x-pincer': { listen: `127.0.0.1:${port}` },
});

export interface Spawned {
  child: ChildProcess;
  exited: Promise<number | null>;
  /** stdout and stderr as printed so far. */
  output(): string;
}

export interface DaemonSetUp {
  dataDir: string;
  vendor: VendorServer;
  manifest: string;
  env: Env;
  /** `daemon --manifest ... --protocol openai-compatible --endpoint <vendor> --model m`. */
  args: string[];
}

export class DaemonProcesses {
  dataDir = '';
  vendor: VendorServer | undefined;
  private readonly children: ChildProcess[] = [];

  /** A data directory, a vendor server, and a manifest with `channels` (then `edit`). */
  async setUp(
    prefix: string,
    options: {
      channels?: unknown[];
      edit?: Parameters<typeof writeManifest>[2];
      env?: Env;
    } = {},
  ): Promise<DaemonSetUp> {
    this.dataDir = await mkdtemp(path.join(os.tmpdir(), `${prefix}-`));
    const vendor = await startVendorServer();
    this.vendor = vendor;
    const manifest = await writeManifest(this.dataDir, options.channels ?? [], options.edit);
    const env: Env = {
      PATH: process.env.PATH,
      HOME: this.dataDir,
      PINCER_HOME: this.dataDir,
      PINCER_KEYCHAIN: 'off',
      ...options.env,
    };
    const args = [
      'daemon',
      '--manifest',
      manifest,
      '--protocol',
      'openai-compatible',
      '--endpoint',
      vendor.url,
      '--model',
      'm',
    ];
    return { dataDir: this.dataDir, vendor, manifest, env, args };
  }

  /** Kills `child` after the test if it still runs (for processes a test spawns itself). */
  track<C extends ChildProcess>(child: C): C {
    this.children.push(child);
    return child;
  }

  /** The built CLI with `args`, killed after the test if still running. */
  spawn(args: string[], env: Env, stdin: 'ignore' | 'pipe' = 'ignore'): Spawned {
    const child = spawn(process.execPath, [builtCli, ...args], {
      env: env as NodeJS.ProcessEnv,
      stdio: [stdin, 'pipe', 'pipe'],
    });
    this.children.push(child);
    let output = '';
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding('utf8').on('data', (d: string) => {
        output += d;
      });
    }
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    return { child, exited, output: () => output };
  }

  /** Spawns a daemon and waits until it says it is ready (or fails with what it printed). */
  async startDaemon(args: string[], env: Env): Promise<Spawned> {
    const daemon = this.spawn(args, env);
    await until(
      'daemon ready',
      () => daemon.output().includes('Pincer daemon ready') || daemon.child.exitCode !== null,
      daemon.output,
    );
    if (daemon.child.exitCode !== null) {
      throw new Error(`daemon exited ${daemon.child.exitCode}: ${daemon.output()}`);
    }
    return daemon;
  }

  async cleanUp(): Promise<void> {
    for (const child of this.children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
    await this.vendor?.close();
    this.vendor = undefined;
    if (this.dataDir) await rm(this.dataDir, { recursive: true, force: true });
    this.dataDir = '';
  }
}

/** A webhook request signed as the channel expects (HMAC of `timestamp.body`). */
export function signedPost(url: string, secret: string, body: unknown): Promise<Response> {
  const text = JSON.stringify(body);
  const timestamp = String(Math.floor(Date.now() / 1000));
  return fetch(url, {
    method: 'POST',
    body: text,
    headers: {
      'content-type': 'application/json',
      [TIMESTAMP_HEADER]: timestamp,
      [SIGNATURE_HEADER]: signWebhook(secret, timestamp, text),
    },
  });
}

/**
 * The URL of a listener the running daemon `pid` reports (`pincer daemon status --json`): the
 * one of `protocol`, else the first. Not the status a stopped daemon left behind.
 */
export async function listenerUrl(env: Env, pid: number | undefined, protocol?: string) {
  let url = '';
  await until(
    'the daemon reports its listener',
    async () => {
      const status = await runBuiltCli(['daemon', 'status', '--json'], { env });
      const read = JSON.parse(status.stdout) as {
        running: boolean;
        status: { pid: number; servers?: Array<{ protocol?: string; url?: string }> } | null;
      };
      if (!read.running || read.status?.pid !== pid) return false;
      const servers = read.status?.servers ?? [];
      url = (protocol ? servers.find((s) => s.protocol === protocol) : servers[0])?.url ?? '';
      return url !== '';
    },
    () => '',
    90_000,
  );
  return url;
}
