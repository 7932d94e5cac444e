/**
 * The map of what ships and what proves it: every surface a user starts, and the test that
 * starts it from the built artifacts (this folder, or an older suite that already did). The
 * checks keep it true: each command `pincer --help` lists has a row, and each test named
 * exists and starts the bundle (dist/cli.js, or `npm start` over out/), not the source.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { Product, repoRoot } from './support/harness.js';

interface Surface {
  /** The top-level command a user types. */
  command: string;
  surface: string;
  /** Tests that start the built artifacts for it, from the repository root. */
  tests: string[];
}

const SURFACES: Surface[] = [
  {
    command: 'run',
    surface: 'run: text reply on each protocol',
    tests: ['test/integration/models/cli-run.test.ts'],
  },
  {
    command: 'run',
    surface: 'run: a tool approved on the terminal, --json',
    tests: ['test/integration/policy/cli-approvals.test.ts'],
  },
  {
    command: 'chat',
    surface: 'chat (piped, line mode) and chat --plain attached to a daemon',
    tests: [
      'test/integration/policy/cli-approvals.test.ts',
      'test/integration/channels/chat-attach.test.ts',
    ],
  },
  { command: 'tui', surface: 'tui in a real pty', tests: ['test/product/tui.test.ts'] },
  {
    command: 'gateway',
    surface: 'npm start → gateway over out/renderer + Chromium chat',
    tests: [
      'test/product/browser-ui.test.ts',
      'test/e2e/renderer-local-model.test.ts',
      'test/product/gateway-one-agent.test.ts',
    ],
  },
  {
    command: 'daemon',
    surface: 'daemon: Telegram, webhook, one-second cron, NATS queue from the manifest',
    tests: ['test/product/daemon-channels.test.ts', 'test/integration/channels/daemon.test.ts'],
  },
  {
    command: 'daemon',
    surface: 'daemon --mcp-http (SDK Streamable HTTP client, bearer token)',
    tests: ['test/integration/channels/daemon-mcp.test.ts'],
  },
  {
    command: 'mcp',
    surface: 'mcp serve (stdio, SDK client)',
    tests: ['test/integration/mcp/cli.test.ts'],
  },
  {
    command: 'serve',
    surface: 'serve --stdio / --http / --ws (CKP: initialize, one delegated task)',
    tests: ['test/product/serve-ckp.test.ts', 'test/integration/ckp/serve-stdio.test.ts'],
  },
  {
    command: 'serve',
    surface: 'serve --openai (the official openai client)',
    tests: ['test/integration/openai-server/cli-serve.test.ts'],
  },
  {
    command: 'serve',
    surface: 'serve --a2a (the official A2A SDK client) and CKP claw.task.* on the same tasks',
    tests: ['test/product/a2a.test.ts', 'test/product/ckp-tasks.test.ts'],
  },
  {
    command: 'agents',
    surface: 'agents add (an official A2A SDK server) and a run delegating to it',
    tests: ['test/product/a2a-client.test.ts'],
  },
  {
    command: 'swarm',
    surface: 'swarm join + swarm run, two processes, real nats-server',
    tests: ['test/product/swarm.test.ts'],
  },
  {
    command: 'models',
    surface: 'models list / run after a GGUF import (the UI’s first run)',
    tests: ['test/product/models-import.test.ts', 'test/integration/local/cli-local.test.ts'],
  },
  {
    command: 'secrets',
    surface: 'secrets set/list/get/rm on the vault (PINCER_VAULT_PASSPHRASE)',
    tests: ['test/integration/secrets/cli.test.ts'],
  },
  {
    command: 'doctor',
    surface: 'doctor, table and --json',
    tests: ['test/integration/cli.test.ts'],
  },
  {
    command: 'runs',
    surface: 'runs list / show / resume',
    tests: ['test/integration/runtime/cli-runs.test.ts'],
  },
  {
    command: 'audit',
    surface: 'audit of a run',
    tests: ['test/integration/policy/cli-approvals.test.ts'],
  },
  {
    command: 'channels',
    surface: 'channels status of a running daemon',
    tests: ['test/integration/channels/daemon.test.ts'],
  },
  {
    command: 'memory',
    surface: 'memory add / search',
    tests: ['test/integration/memory/cli-remembers.test.ts'],
  },
  {
    command: 'skills',
    surface: 'skills add / list',
    tests: ['test/integration/security/host-files.test.ts'],
  },
  {
    command: 'manifest',
    surface: 'manifest validate of the shipped default',
    tests: ['test/product/surfaces.test.ts'],
  },
];

/** What a test file that starts the bundle mentions (the built CLI, or `npm start`). */
const STARTS_THE_BUNDLE =
  /builtCli|runBuiltCli|DaemonProcesses|dist\/cli\.js|scripts\/start\.mjs|\.\/support\/harness\.js/;

const product = new Product();

it('every command pincer --help lists has a surface with a test', async () => {
  const scratch = await product.scratch('help');
  try {
    const help = await product.run(['--help'], scratch.env);
    const commands = help.stdout
      .slice(help.stdout.indexOf('Commands:'))
      .split('\n')
      .map((line) => /^ {2}([a-z][\w-]*)/.exec(line)?.[1])
      .filter((name): name is string => name !== undefined && name !== 'help');
    expect(commands.length).toBeGreaterThan(10);
    const mapped = new Set(SURFACES.map((row) => row.command));
    expect(commands.filter((command) => !mapped.has(command))).toEqual([]);
  } finally {
    await product.cleanUp();
  }
});

it('each test named starts the built artifacts', () => {
  for (const file of new Set(SURFACES.flatMap((row) => row.tests))) {
    const text = readFileSync(path.join(repoRoot, file), 'utf8');
    expect(STARTS_THE_BUNDLE.test(text), file).toBe(true);
  }
});

it('manifest validate: the built CLI accepts the shipped default manifest', async () => {
  const scratch = await product.scratch('manifest');
  try {
    const checked = await product.run(
      ['manifest', 'validate', path.join(repoRoot, 'resources/claw.yaml')],
      scratch.env,
    );
    expect(checked.stdout).toContain('valid CKP 0.2.0 manifest');
    expect(checked.code).toBe(0);
  } finally {
    await product.cleanUp();
  }
});
