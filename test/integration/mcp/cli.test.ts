/**
 * `pincer mcp`: the server list in the Claude desktop shape (add, list, import, remove, test),
 * and `pincer mcp serve` (the built CLI) driven by the MCP SDK's own client over stdio.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { builtCli, repoRoot, runCliInProcess } from '../../support/cli-run.js';

const server = path.join(repoRoot, 'test/fixtures/mcp/stdio-server.mjs');
let dataDir = '';
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-mcp-cli-'));
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));

const pincer = (...argv: string[]) => runCliInProcess(argv, { dataDir });

it('adds, lists, imports, tests and removes servers in mcp.json', async () => {
  expect((await pincer('mcp', 'add', 'local', process.execPath, server)).code).toBe(0);
  expect(
    (await pincer('mcp', 'add', 'web', '--url', 'http://127.0.0.1:9/mcp', '--header', 'X=1')).code,
  ).toBe(0);
  expect((await pincer('mcp', 'add', 'local', 'other')).code).toBe(2);
  expect((await pincer('mcp', 'add', 'Bad Name', 'x')).code).toBe(2);
  const claude = path.join(dataDir, 'claude_desktop_config.json');
  await writeFile(
    claude,
    JSON.stringify({ mcpServers: { files: { command: 'npx', args: ['-y', 'some-server'] } } }),
  );
  expect((await pincer('mcp', 'import', claude)).stdout).toContain('Imported files');
  const list = await pincer('mcp', 'list');
  expect(list.stdout).toMatch(/^local .*stdio-server\.mjs$/m);
  expect(list.stdout).toMatch(/^web +http:\/\/127\.0\.0\.1:9\/mcp$/m);
  const stored = JSON.parse(await readFile(path.join(dataDir, 'mcp.json'), 'utf8'));
  expect(stored.mcpServers.web).toMatchObject({
    url: 'http://127.0.0.1:9/mcp',
    headers: { X: '1' },
  });
  // The imported one would run npx (the network): it goes before the others are started.
  expect((await pincer('mcp', 'remove', 'files')).code).toBe(0);
  expect((await pincer('mcp', 'remove', 'files')).code).toBe(2);
  expect((await pincer('mcp', 'remove', 'web')).code).toBe(0);
  const tested = await pincer('mcp', 'test', 'local');
  expect(tested.code).toBe(0);
  expect(tested.stdout).toContain('local: ready, 4 tool(s)');
  expect(tested.stdout).toContain('mcp/local/echo');
});

it('pincer mcp serve: the SDK client lists the tools and calls them under the manifest policy', async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      builtCli,
      'mcp',
      'serve',
      '--manifest',
      path.join(repoRoot, 'test/fixtures/ckp/serve/level-3.yaml'),
    ],
    env: {
      ...(process.env as Record<string, string>),
      PINCER_HOME: dataDir,
      PINCER_KEYCHAIN: 'off',
    },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'sdk-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['fs__list', 'fs__write', 'wipe-disk']));
    const listed = await client.callTool({ name: 'fs__list', arguments: { path: '.' } });
    expect(listed.isError).toBeFalsy();
    const denied = await client.callTool({ name: 'wipe-disk', arguments: {} });
    expect(denied).toMatchObject({ isError: true, structuredContent: { code: -32011 } });
    // The write needs an approval; no surface answers one here, so it is refused at once.
    const write = await client.callTool({
      name: 'fs__write',
      arguments: { path: 'a.md', content: 'x' },
    });
    expect(write).toMatchObject({ isError: true, structuredContent: { code: -32013 } });
  } finally {
    await client.close();
  }
});
