/**
 * The README's promise: `pincer serve --stdio --manifest examples/level-3/claw.yaml` answers
 * the scripted session of every method in examples/ckp-session.jsonl.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { expect, it } from 'vitest';
import { builtCli, repoRoot } from '../../support/cli-run.js';

it('answers every method of the scripted example session', async () => {
  const home = await mkdtemp(path.join(os.tmpdir(), 'pincer-ckp-example-'));
  const session = await readFile(path.join(repoRoot, 'examples/ckp-session.jsonl'), 'utf8');
  const requests = session
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { id?: number; method: string });
  const child = spawn(
    process.execPath,
    [builtCli, 'serve', '--stdio', '--manifest', path.join(repoRoot, 'examples/level-3/claw.yaml')],
    { env: { ...process.env, PINCER_HOME: home, PINCER_KEYCHAIN: 'off' } },
  );
  const answers = new Map<number, { result?: unknown; error?: { code: number } }>();
  const lastId = Math.max(...requests.flatMap((r) => (r.id === undefined ? [] : [r.id])));
  try {
    await new Promise<void>((resolve) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        const message = JSON.parse(line);
        if (typeof message.id === 'number') answers.set(message.id, message);
        // The swarm report the agent sends back is answered like an operator would.
        if (message.method === 'claw.swarm.report')
          child.stdin.write(
            `${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { acknowledged: true } })}\n`,
          );
        if (answers.has(lastId)) resolve();
      });
      child.stdin.write(session);
    });
  } finally {
    child.stdin.end();
    await new Promise((resolve) => child.on('exit', resolve));
    await rm(home, { recursive: true, force: true });
  }
  const methods = new Set(requests.map((r) => r.method));
  expect(methods.size).toBe(14);
  for (const request of requests.filter((r) => r.id !== undefined)) {
    const answer = answers.get(request.id as number);
    expect(answer, request.method).toBeDefined();
    expect(answer?.error, request.method).toBeUndefined();
  }
  expect(answers.get(3)?.result).toEqual({
    content: [{ type: 'text', text: '3' }],
    isError: false,
  });
  expect(answers.get(13)?.result).toEqual({ drained: true });
});
