/** A real nats-server with JetStream on a free loopback port, for the swarm suites. */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** Why the suite cannot run here, or undefined when nats-server is installed. */
export function natsMissing(): string | undefined {
  const probe = spawnSync('nats-server', ['--version'], { encoding: 'utf8' });
  return probe.error ? 'nats-server is not installed (apt-get install nats-server)' : undefined;
}

export interface NatsServer {
  url: string;
  /** Stops the server and starts it again on the same port and store (a restart). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function launch(port: number, store: string): Promise<ChildProcess> {
  const child: ChildProcess = spawn(
    'nats-server',
    ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', store],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  await new Promise<void>((resolve, reject) => {
    let log = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      log += chunk;
      if (log.includes('Server is ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`nats-server exited (${code}): ${log}`)));
  });
  return child;
}

async function halt(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

export async function startNats(): Promise<NatsServer> {
  const store = await mkdtemp(path.join(os.tmpdir(), 'pincer-nats-'));
  const port = await freePort();
  let child = await launch(port, store);
  return {
    url: `nats://127.0.0.1:${port}`,
    restart: async () => {
      await halt(child);
      child = await launch(port, store);
    },
    stop: async () => {
      await halt(child);
      await rm(store, { recursive: true, force: true });
    },
  };
}
