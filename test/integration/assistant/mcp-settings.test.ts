/**
 * Settings → MCP through the real contract handlers: a stdio server added from the app is
 * written to mcp.json (the file `pincer mcp` edits), started under the sandbox, and its tools
 * listed and registered; disabling stops it and takes its tools away, enabling brings them back;
 * a server that cannot start shows its error; removing takes it out of the file.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch, type IpcHandlers } from '../../../src/main/core/ipc/dispatch.js';
import { createCoreHandlers } from '../../../src/main/core/ipc/handlers.js';
import type { ChannelName, RequestOf, ResponseOf } from '../../../src/shared/ipc.js';
import { type AssistantFixture, scriptedAssistant } from '../../support/assistant-harness.js';
import { repoRoot } from '../../support/cli-run.js';

const server = path.join(repoRoot, 'test/fixtures/mcp/stdio-server.mjs');
let fixture: AssistantFixture;
let handlers: IpcHandlers;

async function call<C extends ChannelName>(channel: C, request: RequestOf<C>) {
  const result = await dispatch(handlers, channel, request);
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value as ResponseOf<C>;
}

beforeAll(async () => {
  fixture = await scriptedAssistant({ delayMs: 1 });
  handlers = createCoreHandlers({ assistant: fixture.assistant, electronVersion: null });
});
afterAll(async () => {
  await fixture?.close();
});

describe('Settings → MCP over the IPC contract', () => {
  it('adds a stdio server: stored in mcp.json, started, its tools listed', async () => {
    expect(await call('mcp.list', {})).toEqual({ servers: [] });
    const { servers } = await call('mcp.add', {
      name: 'local',
      command: process.execPath,
      args: [server],
    });
    expect(servers).toEqual([
      expect.objectContaining({
        name: 'local',
        transport: 'stdio',
        target: `${process.execPath} ${server}`,
        enabled: true,
        state: 'ready',
        error: null,
      }),
    ]);
    expect(servers[0]?.tools).toContain('mcp/local/echo');
    const stored = JSON.parse(await readFile(path.join(fixture.dataDir, 'mcp.json'), 'utf8'));
    expect(stored.mcpServers.local).toMatchObject({ command: process.execPath, args: [server] });
  });

  it('disables and enables a server: its tools leave and come back', async () => {
    const off = await call('mcp.setEnabled', { name: 'local', enabled: false });
    expect(off.servers[0]).toMatchObject({ enabled: false, state: 'off', tools: [] });
    const stored = JSON.parse(await readFile(path.join(fixture.dataDir, 'mcp.json'), 'utf8'));
    expect(stored.mcpServers.local.disabled).toBe(true);
    const on = await call('mcp.setEnabled', { name: 'local', enabled: true });
    expect(on.servers[0]).toMatchObject({ enabled: true, state: 'ready' });
    expect(on.servers[0]?.tools).toContain('mcp/local/echo');
  });

  it('shows the last error of a server that cannot start', async () => {
    const missing = path.join(fixture.dataDir, 'no-such-server.mjs');
    const { servers } = await call('mcp.add', {
      name: 'broken',
      command: process.execPath,
      args: [missing],
    });
    const broken = servers.find((s) => s.name === 'broken');
    expect(broken?.state).not.toBe('ready');
    expect(broken?.error).toBeTruthy();
    expect(broken?.tools).toEqual([]);
  });

  it('refuses a bad name, both a command and a URL, and a duplicate; removes a server', async () => {
    const bad = await dispatch(handlers, 'mcp.add', { name: 'Bad Name', command: 'x' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    const both = await dispatch(handlers, 'mcp.add', {
      name: 'both',
      command: 'x',
      url: 'http://127.0.0.1:1/mcp',
    });
    expect(both).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    const again = await dispatch(handlers, 'mcp.add', { name: 'local', command: 'x' });
    expect(again.ok).toBe(false);
    const { servers } = await call('mcp.remove', { name: 'broken' });
    expect(servers.map((s) => s.name)).toEqual(['local']);
    const gone = await dispatch(handlers, 'mcp.remove', { name: 'broken' });
    expect(gone).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('shows what each server asks for (network, stored secrets by name) and whether it was granted', async () => {
    const file = path.join(fixture.dataDir, 'mcp.json');
    const stored = JSON.parse(await readFile(file, 'utf8'));
    stored.mcpServers.shared = {
      command: process.execPath,
      args: [server],
      env: { TOKEN: 'secret:GITHUB_TOKEN', MODE: 'plain' },
      network: true,
      granted: ['network'],
      disabled: true,
    };
    await writeFile(file, JSON.stringify(stored));
    const { servers } = await call('mcp.list', {});
    expect(servers.find((s) => s.name === 'shared')?.grants).toEqual([
      { grant: 'network', label: 'network', granted: true },
      { grant: 'secret:GITHUB_TOKEN', label: 'secret GITHUB_TOKEN as env TOKEN', granted: false },
    ]);
    expect(servers.find((s) => s.name === 'local')?.grants).toEqual([]);
    expect(JSON.stringify(servers)).not.toContain('plain');
    await call('mcp.remove', { name: 'shared' });
  });
});
