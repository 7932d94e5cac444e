/**
 * `pincer run --workspace DIR`: the tools work in the folder the user chose (a file there is
 * read by `fs/read` with a relative path), the command says which folder it uses, and a folder
 * that does not exist is a usage error before anything opens.
 */
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVendorServer, type VendorServer } from '../../fixtures/vendor-server.js';
import { openaiFrames } from '../../fixtures/vendor-streams.js';
import { runCliInProcess } from '../../support/cli-run.js';

let home = '';
let chosen = '';
let server: VendorServer;
beforeAll(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'pincer-ws-home-'));
  chosen = await mkdtemp(path.join(os.tmpdir(), 'pincer-ws-chosen-'));
  server = await startVendorServer('/v1');
});
afterAll(async () => {
  await server.close();
  await rm(home, { recursive: true, force: true });
  await rm(chosen, { recursive: true, force: true });
});

const model = () => ['--protocol', 'openai', '--endpoint', server.url, '--model', 'm'];

describe('pincer run --workspace', () => {
  it('refuses a folder that does not exist with exit 2', async () => {
    const missing = path.join(chosen, 'no-such-folder');
    const result = await runCliInProcess(['run', ...model(), '--workspace', missing, 'hi'], {
      dataDir: home,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--workspace ${missing}: no such directory`);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a file given as the workspace', async () => {
    const file = path.join(chosen, 'plain.txt');
    await writeFile(file, 'x');
    const result = await runCliInProcess(['run', ...model(), '--workspace', file, 'hi'], {
      dataDir: home,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('not a directory');
  });

  it('runs the tools in the chosen folder and names it', async () => {
    await writeFile(path.join(chosen, 'note.txt'), 'marker-7f3a in the chosen folder');
    server.reply(
      {
        kind: 'sse',
        frames: openaiFrames({
          tools: [{ id: 'call_1', name: 'fs__read', args: ['{"path":"note.txt"}'] }],
        }),
      },
      { kind: 'sse', frames: openaiFrames({ text: ['done'] }) },
    );
    const result = await runCliInProcess(
      ['run', ...model(), '--tools', 'fs/read', '--workspace', chosen, 'read note.txt'],
      { dataDir: home },
    );
    expect(result.stderr).toContain(`workspace ${await realpath(chosen)}`);
    expect(result.code).toBe(0);
    // The second model request carries the tool's result: the file from the chosen folder.
    expect(JSON.stringify(server.requests.at(-1)?.body)).toContain('marker-7f3a');
  });
});
