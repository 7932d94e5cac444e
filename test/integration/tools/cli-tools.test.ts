/**
 * The #5 demo as a child process: `pincer run --model-path <tiny> --tools ... --require-tool`
 * on the built CLI. The random model's first turn is grammar-constrained, so its call names an
 * allowed tool with arguments valid for the tool's declared schema, passes the policy and runs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_TOOLS } from '../../../src/main/core/tools/builtins/index.js';
import { ToolRegistry } from '../../../src/main/core/tools/registry.js';
import { QWEN_TOOLS_TEMPLATE, writeTinyGguf } from '../../fixtures/tiny-gguf.js';
import { runBuiltCli } from '../../support/cli-run.js';

let home = '';
let model = '';

beforeAll(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'pincer-cli-tools-'));
  model = path.join(home, 'tiny.gguf');
  await writeTinyGguf(model, {
    tokenizer: 'bpe',
    chatTemplate: QWEN_TOOLS_TEMPLATE,
    contextLength: 4096,
  });
});

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

interface RunEvent {
  type: string;
  call?: { id: string; name: string; input: Record<string, unknown> };
  call_id?: string;
  decision?: string;
}

describe('pincer run with tools on the tiny local model (built dist/cli.js)', () => {
  it('a grammar-constrained call reaches the registry valid, is decided by the policy and runs', async () => {
    const allow = ['fs/list', 'fs/read'];
    const result = await runBuiltCli(
      [
        'run',
        '--model-path',
        model,
        '--threads',
        '2',
        '--context-size',
        '4096',
        // More than the longest call the grammar admits (a 24-character path can be 96 byte-level
        // tokens of a random model, then the call's syntax): a call cut short cannot parse.
        '--max-tokens',
        '1024',
        '--temperature',
        '1',
        '--tools',
        allow.join(','),
        // Random weights rarely close a string: bound arguments so the forced call ends in time.
        '--max-arg-length',
        '24',
        '--require-tool',
        '--json',
        'list the files',
      ],
      { env: { ...process.env, PINCER_HOME: home, PINCER_MODEL: '' }, timeoutMs: 170_000 },
    );
    const events = result.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as RunEvent);
    const requested = events.find((e) => e.type === 'tool.requested');
    // On a miss, say what the run did instead: its exit code, events and errors.
    expect(
      requested?.call,
      `exit ${result.code}\n${result.stdout}\n${result.stderr}`,
    ).toBeDefined();
    const call = requested?.call ?? { id: '', name: '', input: {} };
    expect(['fs/list', 'fs/read']).toContain(call.name);

    // The same registry the CLI uses: the call resolves, is allowed, and validates against the
    // tool's declared (not narrowed) schema.
    const registry = new ToolRegistry();
    for (const tool of BUILTIN_TOOLS) registry.register(tool);
    const checked = await registry.check(call, allow);
    expect('error' in checked ? checked.error.content : 'valid').toBe('valid');

    const decided = events.find((e) => e.type === 'policy.decided' && e.call_id === call.id);
    expect(decided?.decision).toBe('allow');
    expect(events.some((e) => e.type === 'tool.finished' && e.call_id === call.id)).toBe(true);
  }, 180_000);
});
