/**
 * An MCP server's stdout is hostile input. A real SDK server (or a plain process) writes 10 MiB
 * without a newline at start or mid-call, or answers tools/list with an 11 MB line: the server is
 * disconnected with that reason, its calls fail saying so, and whatever hosts the agent lives on.
 * The connection itself (real processes through the sandbox), the built `pincer run`, and a real
 * `pincer daemon`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addMcpServer } from '../../../src/main/core/mcp/config.js';
import { McpConnection } from '../../../src/main/core/mcp/connection.js';
import { MAX_MESSAGE_BYTES } from '../../../src/main/core/mcp/process-transport.js';
import { detectBackend } from '../../../src/main/core/sandbox/backend.js';
import { createSandbox, type Sandbox } from '../../../src/main/core/sandbox/sandbox.js';
import { sandboxSettings } from '../../../src/main/core/sandbox/settings.js';
import { startVendorServer, type VendorServer } from '../../fixtures/vendor-server.js';
import { openaiFrames } from '../../fixtures/vendor-streams.js';
import { repoRoot, runBuiltCli } from '../../support/cli-run.js';
import { DaemonProcesses, requireBuiltCli, until } from '../../support/daemon-process.js';

const SERVER = path.join(repoRoot, 'test/fixtures/mcp/hostile-stdout-server.mjs');
const OVERFLOW = new RegExp(
  `disconnected: it wrote a message longer than ${MAX_MESSAGE_BYTES} bytes`,
);

describe('the MCP connection over a real server process', () => {
  let workspace = '';
  let sandbox: Sandbox;
  const open: McpConnection[] = [];
  const connection = (mode: string) => {
    const made = new McpConnection({
      label: mode,
      target: {
        kind: 'stdio',
        argv: [process.execPath, SERVER, mode],
        env: { PATH: process.env.PATH ?? '' },
        network: false,
      },
      spawn: sandbox.spawnServer,
      backoffMs: 50,
      maxBackoffMs: 200,
    });
    open.push(made);
    return made;
  };

  beforeAll(async () => {
    workspace = await mkdtemp(path.join(os.tmpdir(), 'pincer-mcp-stdout-'));
    sandbox = await createSandbox({
      backend: await detectBackend({ forceProcess: true }),
      settings: sandboxSettings({ workspace }),
      pool: false,
    });
  });
  afterAll(async () => {
    for (const made of open) await made.close();
    await sandbox?.close();
    await rm(workspace, { recursive: true, force: true });
  });

  for (const mode of ['flood', 'huge-list']) {
    it(`${mode}: the server is disconnected with the reason, nothing is thrown into the host`, async () => {
      const server = connection(mode);
      await expect(server.connect()).rejects.toThrow();
      expect(server.state).toBe('down');
      expect(server.lastError).toMatch(OVERFLOW);
      // It is restarted with backoff like a crashed server, and cut off again each time.
      await until('a restart', () => server.startCount >= 2);
      expect(server.lastError).toMatch(OVERFLOW);
    }, 60_000);
  }

  it('a flood mid-call fails that call naming it; the restarted server answers again', async () => {
    const server = connection('flood-call');
    await server.connect();
    const signal = new AbortController().signal;
    expect((await server.call('echo', { text: 'a' }, signal)).content).toBe('echo: a');
    await expect(server.call('flood', {}, signal)).rejects.toThrow(OVERFLOW);
    await until(
      'the restart',
      () => server.state === 'ready',
      () => server.lastError ?? '',
    );
    expect((await server.call('echo', { text: 'b' }, signal)).content).toBe('echo: b');
  }, 60_000);
});

describe('the built CLI and daemon with such a server configured', () => {
  let vendor: VendorServer;
  let home = '';
  const daemons = new DaemonProcesses();

  beforeAll(async () => {
    requireBuiltCli();
    vendor = await startVendorServer();
  });
  afterEach(async () => {
    await daemons.cleanUp();
    if (home) await rm(home, { recursive: true, force: true });
    home = '';
  });
  afterAll(() => vendor.close());

  for (const mode of ['flood', 'huge-list']) {
    for (const tools of [[], ['--tools', '']]) {
      it(`pincer run ${tools.join(' ')} answers with a ${mode} server in mcp.json`, async () => {
        home = await mkdtemp(path.join(os.tmpdir(), 'pincer-mcp-stdout-run-'));
        await addMcpServer(home, mode, { command: process.execPath, args: [SERVER, mode] });
        vendor.reply({ kind: 'sse', frames: openaiFrames({ text: ['Still here.'] }) });
        const result = await runBuiltCli(
          ['run', '--protocol', 'openai', '--endpoint', vendor.url, '--model', 'm', ...tools, 'hi'],
          { env: { ...process.env, PINCER_HOME: home, PINCER_KEYCHAIN: 'off' }, timeoutMs: 60_000 },
        );
        expect(result.stderr).not.toContain('ReadBuffer');
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toContain('Still here.');
      }, 90_000);
    }
  }

  it('pincer daemon logs the server as failing and stays up', async () => {
    const setUp = await daemons.setUp('pincer-mcp-stdout-daemon');
    await addMcpServer(setUp.dataDir, 'flood', {
      command: process.execPath,
      args: [SERVER, 'flood'],
    });
    const daemon = await daemons.startDaemon(setUp.args, setUp.env);
    await until(
      'the server logged as failing (or the daemon gone)',
      () => OVERFLOW.test(daemon.output()) || daemon.child.exitCode !== null,
      daemon.output,
    );
    expect(daemon.child.exitCode, daemon.output()).toBeNull();
    expect(daemon.output()).toMatch(new RegExp(`MCP server flood: ${OVERFLOW.source}`));
    // Still serving: the status it reports is its own, fresh.
    const status = await runBuiltCli(['daemon', 'status', '--json'], { env: setUp.env });
    expect(JSON.parse(status.stdout)).toMatchObject({
      running: true,
      status: { pid: daemon.child.pid },
    });
    expect(daemon.child.exitCode).toBeNull();
  }, 90_000);
});
