/**
 * The worker channel is untrusted input (issue 24): a tool in a worker writes straight onto the
 * descriptor the host reads its messages from. Whatever it writes (bytes that are not JSON, a
 * 50 MB line with no newline, JSON of the wrong shape, a result for another call), the host
 * process lives on, the call fails naming the problem, that worker is replaced and the next call
 * works. Real workers under real bwrap, and under the process backend.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectBackend } from '../../../src/main/core/sandbox/backend.js';
import { WIRE_CONTENT_BYTES } from '../../../src/main/core/sandbox/channel.js';
import { createSandbox, type Sandbox } from '../../../src/main/core/sandbox/sandbox.js';
import { sandboxSettings } from '../../../src/main/core/sandbox/settings.js';
import { fsRead } from '../../../src/main/core/tools/builtins/fs.js';
import type { Tool, ToolOutput } from '../../../src/main/core/tools/types.js';
import { hostileTools } from '../sandbox/fixtures/hostile-tools.js';

const HOSTILE_MODULE = path.join(
  import.meta.dirname,
  '..',
  'sandbox',
  'fixtures',
  'hostile-tools.ts',
);

const tool = (name: string): Tool => {
  const found = hostileTools.find((t) => t.name === name);
  if (!found) throw new Error(name);
  // Long enough that only the host's own check can end these calls: a timeout would be a failure.
  return { ...found, timeoutMs: 60_000 };
};

const ATTACKS: ReadonlyArray<[name: string, problem: RegExp]> = [
  ['hostile/garble', /not JSON/],
  ['hostile/flood', /longer than \d+ bytes/],
  ['hostile/misshape', /wrong shape/],
  ['hostile/forge', /reply for call 987654, which it was not running/],
];

for (const kind of ['bwrap', 'process'] as const) {
  describe(`a worker writing its own bytes onto the channel (${kind} backend)`, () => {
    let workspace = '';
    let sandbox: Sandbox;
    const run = (name: string): Promise<ToolOutput> =>
      sandbox.executor.run(
        tool(name),
        {},
        { signal: new AbortController().signal, workspace, env: {} },
      );

    beforeAll(async () => {
      const backend = await detectBackend({ forceProcess: kind === 'process' });
      if (backend.kind !== kind)
        throw new Error(
          `these tests need the ${kind} backend (${backend.reason}); CI installs bubblewrap`,
        );
      workspace = await mkdtemp(path.join(os.tmpdir(), 'pincer-channel-'));
      sandbox = await createSandbox({
        backend,
        settings: sandboxSettings({ workspace }),
        pool: { size: 1, onlineSize: 0, modules: [HOSTILE_MODULE] },
      });
    }, 60_000);

    afterAll(async () => {
      await sandbox?.close();
      if (workspace) await rm(workspace, { recursive: true, force: true });
    });

    for (const [name, problem] of ATTACKS) {
      it(`${name}: the call fails naming the problem, the worker is replaced, the next call works`, async () => {
        const before = await run('hostile/token');
        expect(before.isError).toBeFalsy();
        const result = await run(name);
        expect(result.isError).toBe(true);
        expect(result.content).toContain('broke the channel protocol');
        expect(result.content).toMatch(problem);
        expect(result.content).not.toContain('FORGED');
        // The host lives (an uncaught exception here would also fail the run).
        expect(process.kill(process.pid, 0)).toBe(true);
        // One offline worker: the next call runs in its replacement, and works.
        const after = await run('hostile/token');
        expect(after.isError).toBeFalsy();
        expect(after.content).toMatch(/^[0-9a-f-]{36}$/);
        expect(after.content).not.toBe(before.content);
      }, 60_000);
    }

    it('a legitimate output past the wire budget is trimmed by the worker, not taken for an attack', async () => {
      // One 6 MB line: fs/read returns it whole; the host's cap (runTool) would cut it further.
      await writeFile(path.join(workspace, 'big.txt'), `${'a'.repeat(6 * 1024 * 1024)}\n`);
      const context = { signal: new AbortController().signal, workspace, env: {} };
      const result = await sandbox.executor.run(fsRead, { path: 'big.txt' }, context);
      expect(result.isError).toBeFalsy();
      expect(result.content).toMatch(/^a+$/);
      expect(result.content.length).toBe(WIRE_CONTENT_BYTES);
    }, 60_000);
  });
}
