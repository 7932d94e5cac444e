/**
 * Issue 24, the confusing cases met on the way, each with a clear error: a damaged database is
 * named, a YAML alias bomb is named with its file, an unknown tool is not a policy denial, a
 * model's unreadable or absurdly nested tool arguments go back to the model as
 * `invalid_arguments` (the run goes on), and a long approval shows how its arguments end.
 */
import { mkdir, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSkill } from '../../../src/main/core/skills/parse.js';
import { profileDatabasePath } from '../../../src/main/core/storage/index.js';
import { startVendorServer, type VendorServer } from '../../fixtures/vendor-server.js';
import { openaiFrames } from '../../fixtures/vendor-streams.js';
import { runBuiltCli, runCliInProcess } from '../../support/cli-run.js';

let home = '';
beforeAll(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'pincer-errors-'));
});
afterAll(() => rm(home, { recursive: true, force: true }));

/** A fresh data directory per test: one test's damage is not the next one's problem. */
async function dataDir(name: string): Promise<string> {
  const dir = path.join(home, name);
  await mkdir(dir, { recursive: true });
  return dir;
}

const ALIAS_BOMB = [
  'a: &a ["x","x","x","x","x","x","x","x","x"]',
  ...'bcdefghi'
    .split('')
    .map((name, i) => `${name}: &${name} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`),
].join('\n');

describe('a damaged database', () => {
  it('is named when a damaged page turns up at a query, long after a clean open', async () => {
    const dir = await dataDir('damaged');
    expect((await runCliInProcess(['audit'], { dataDir: dir })).code).toBe(0);
    const file = profileDatabasePath(dir);
    const db = new Database(file);
    const { rootpage } = db
      .prepare("select rootpage from sqlite_schema where name = 'audit_events'")
      .get() as { rootpage: number };
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.close();
    const handle = await open(file, 'r+');
    await handle.write(Buffer.alloc(pageSize, 0xff), 0, pageSize, (rootpage - 1) * pageSize);
    await handle.close();

    const result = await runCliInProcess(['audit'], { dataDir: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `pincer: the database ${file} is damaged (database disk image is malformed); it was left untouched: restore it from a backup or move it aside\n`,
    );
  });
});

describe('YAML alias bombs', () => {
  it('in a manifest: refused as a manifest error that names the file and line', async () => {
    const file = path.join(home, 'bomb.yaml');
    await writeFile(file, ALIAS_BOMB);
    const result = await runCliInProcess(['manifest', 'validate', file], {
      dataDir: await dataDir('bomb'),
    });
    expect(result.code).toBe(1);
    // The file is named as the validator prints it: relative to the working directory when
    // that is shorter, so only its name and position are fixed here.
    expect(result.stdout + result.stderr).toMatch(
      /bomb\.yaml:1:1: \(document\): Excessive alias count indicates a resource exhaustion attack/,
    );
  });

  it('in a skill: refused as malformed, naming the file', () => {
    expect(() => parseSkill('/skills/bomb.md', `---\n${ALIAS_BOMB}\n---\nbody\n`)).toThrow(
      /^\/skills\/bomb\.md: not valid YAML: Excessive alias count/,
    );
  });
});

describe('tool calls that cannot run', () => {
  let server: VendorServer;
  beforeAll(async () => {
    server = await startVendorServer('/v1');
  });
  afterAll(() => server.close());

  const run = async (dir: string, ...args: string[]) =>
    runCliInProcess(
      ['run', '--protocol', 'openai-compatible', '--endpoint', server.url, '--model', 'm', ...args],
      { dataDir: dir },
    );
  /** The tool result the model was sent back, from its second request. */
  const toolResultSent = () => {
    const body = server.requests.at(-1)?.body as
      | { messages?: Array<{ role: string; content: string }> }
      | undefined;
    return body?.messages?.find((message) => message.role === 'tool')?.content ?? '';
  };

  it('a typed call to an unknown tool says unknown_tool, not a policy denial', async () => {
    const result = await runCliInProcess(['run', '@fs/nope{}'], {
      dataDir: await dataDir('unknown'),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('"error":"unknown_tool"');
    expect(result.stderr).not.toContain('policy');
  });

  it("a model's call to an unknown tool reaches the model as unknown_tool", async () => {
    server.reply(
      {
        kind: 'sse',
        frames: openaiFrames({ tools: [{ id: 'c1', name: 'fs__nope', args: ['{}'] }] }),
      },
      { kind: 'sse', frames: openaiFrames({ text: ['sorry'] }) },
    );
    const result = await run(await dataDir('unknown-model'), 'go');
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(toolResultSent())).toMatchObject({ error: 'unknown_tool', tool: 'fs__nope' });
  });

  it.each([
    ['not JSON', '{"path": "a', /not valid JSON/],
    ['not an object', '[1, 2]', /not a JSON object/],
    [
      'nested 100 000 levels deep',
      `{"path":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
      /nested deeper than 64 levels/,
    ],
  ])(
    'arguments %s go back to the model as invalid_arguments; the run goes on',
    async (_what, args, problem) => {
      server.reply(
        {
          kind: 'sse',
          frames: openaiFrames({ tools: [{ id: 'c1', name: 'fs__read', args: [args] }] }),
        },
        { kind: 'sse', frames: openaiFrames({ text: ['fixed'] }) },
      );
      const result = await run(await dataDir('invalid-args'), 'read it');
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('fixed');
      const sent = JSON.parse(toolResultSent());
      expect(sent).toMatchObject({ error: 'invalid_arguments', tool: 'fs/read' });
      expect(sent.violations[0].message).toMatch(problem);
    },
  );
});

describe('approvals of long arguments', () => {
  it('show the head and the dangerous tail, abridged in the middle', async () => {
    const padding = ' '.repeat(20_000);
    const result = await runBuiltCli(['run', `@sys/exec{command="echo hi${padding}; id"}`], {
      env: { ...process.env, PINCER_HOME: await dataDir('approval'), HOME: home },
    });
    const question = result.stderr.split('\n').find((line) => line.startsWith('Approve '));
    expect(question).toBeDefined();
    expect(question).toContain('echo hi');
    expect(question).toContain('; id');
    expect(question).toContain('chars) …');
    expect(question?.length).toBeLessThan(2100);
    expect(result.stderr).toContain('denied');
  });
});
