/**
 * An MCP server's form filled at the terminal, through the built CLI with answers piped to
 * stdin (not a TTY), as terminal approvals are: `pincer run` and `pincer chat` ask each field on
 * stderr, refuse an answer that does not fit and ask again, pass a decline or a cancel on, and
 * cancel when stdin closes without an answer. The model is a vendor stub on 127.0.0.1 that calls
 * the tool; what the server returned reaches it as the tool result.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVendorServer, type VendorServer } from '../../fixtures/vendor-server.js';
import { openaiFrames } from '../../fixtures/vendor-streams.js';
import { repoRoot, runBuiltCli } from '../../support/cli-run.js';
import { mcpTool, STUB_PROVIDER, writeClaw } from '../../support/manifest.js';

const server = path.join(repoRoot, 'test/fixtures/mcp/client-requests-server.mjs');
let home = '';
let manifest = '';
let env: Record<string, string | undefined> = {};
let vendor: VendorServer;

beforeAll(async () => {
  vendor = await startVendorServer();
  home = await mkdtemp(path.join(os.tmpdir(), 'pincer-cli-elicit-'));
  manifest = await writeClaw(home, {
    name: 'elicit',
    identity: { name: 'elicit', personality: 'Test.', autonomy: 'autonomous' },
    providers: [{ ...STUB_PROVIDER, name: 'stub', endpoint: vendor.url, model: 'm' }],
    tools: [mcpTool('signup', server, 'signup')],
    sandbox: { name: 'box', level: 'process' },
    policies: [{ name: 'p', rules: [{ id: 'all', action: 'allow', scope: 'all' }] }],
  });
  env = {
    ...process.env,
    PINCER_HOME: home,
    PINCER_MODEL: '/nonexistent.gguf',
    PINCER_KEYCHAIN: 'off',
  };
});
afterAll(async () => {
  await vendor?.close();
  await rm(home, { recursive: true, force: true });
});

/** The model calls signup, then says it is done. */
function script(): void {
  vendor.reply(
    { kind: 'sse', frames: openaiFrames({ tools: [{ id: 'c1', name: 'signup', args: ['{}'] }] }) },
    { kind: 'sse', frames: openaiFrames({ text: ['done'] }) },
  );
}

/** What the server returned, as the model read it in the tool result. */
function toolResult(): string {
  const body = vendor.requests.at(-1)?.body as {
    messages: Array<{ role: string; content: string }>;
  };
  return body.messages.find((message) => message.role === 'tool')?.content ?? '';
}

const run = (input?: string) => {
  script();
  return runBuiltCli(
    ['run', '--manifest', manifest, '--provider', 'stub', '--tools', 'signup', 'sign me up'],
    {
      env,
      ...(input === undefined ? {} : { input }),
      timeoutMs: 60_000,
    },
  );
};

describe('an MCP server form at the terminal', () => {
  it('pincer run: each field on its line; an empty line leaves an optional one out', async () => {
    // answer; name; email; age left out; subscribe no; colour by number.
    const result = await run('a\nAda Lovelace\nada@example.org\n\nn\n2\n');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('MCP server ');
    expect(result.stderr).toContain('│ Sign up for the <b>newsletter</b>');
    expect(result.stderr).toContain('Full name (name)');
    expect(toolResult()).toBe(
      'elicitation: accept {"name":"Ada Lovelace","email":"ada@example.org","subscribe":false,"colour":"g"}',
    );
    expect(result.stdout).toContain('done');
  });

  it('an answer that does not fit is refused with the reasons and asked again', async () => {
    const result = await run('a\nA\nnot-mail\n\n\n\na\nAda\nada@example.org\n\ny\nRed\n');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('That does not fit the form');
    expect(result.stderr).toMatch(/name must NOT have fewer than 2 characters/);
    expect(result.stderr).toMatch(/email must match format "email"/);
    expect(toolResult()).toBe(
      'elicitation: accept {"name":"Ada","email":"ada@example.org","subscribe":true,"colour":"r"}',
    );
  });

  it('a decline reaches the server; a closed stdin cancels', async () => {
    const declined = await run('d\n');
    expect(declined.code, declined.stderr).toBe(0);
    expect(toolResult()).toBe('elicitation: decline null');
    const closed = await run();
    expect(closed.stderr).toContain('no answer (input closed): cancelled');
    expect(toolResult()).toBe('elicitation: cancel null');
  });

  it('pincer chat asks the same way, from the chat prompt', async () => {
    script();
    const result = await runBuiltCli(
      ['chat', '--manifest', manifest, '--provider', 'stub', '--tools', 'signup'],
      {
        env,
        input: 'sign me up\nc\n/exit\n',
        timeoutMs: 60_000,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('[a]nswer, [d]ecline, [c]ancel');
    expect(toolResult()).toBe('elicitation: cancel null');
    expect(result.stdout).toContain('done');
  });
});
