/**
 * The default manifest (supervised identity) in a real `pincer run`: a file write stops for
 * approval on the terminal, the answer decides, and `pincer audit` shows who decided what.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startVendorServer, type VendorServer } from '../../fixtures/vendor-server.js';
import { openaiFrames } from '../../fixtures/vendor-streams.js';
import { runBuiltCli } from '../../support/cli-run.js';

let home = '';
let server: VendorServer;
beforeAll(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'pincer-approvals-'));
  server = await startVendorServer();
});
afterAll(async () => {
  await server.close();
  await rm(home, { recursive: true, force: true });
});

const env = () => ({ ...process.env, PINCER_HOME: home, PINCER_KEYCHAIN: 'off' });
const writeCall = (file: string) =>
  openaiFrames({
    tools: [
      {
        id: `call_${file}`,
        name: 'fs__write',
        args: [JSON.stringify({ path: `notes/${file}`, content: 'buy milk' })],
      },
    ],
  });

async function run(file: string, answer: string | undefined) {
  server.reply(
    { kind: 'sse', frames: writeCall(file) },
    { kind: 'sse', frames: openaiFrames({ text: ['ok'] }) },
  );
  return runBuiltCli(
    [
      'run',
      '--protocol',
      'openai',
      '--endpoint',
      server.url,
      '--model',
      'm',
      '--json',
      `save ${file}`,
    ],
    {
      env: env(),
      input: answer,
    },
  );
}

const runIdOf = (stdout: string) => JSON.parse(stdout.split('\n')[0] ?? '{}').run_id as string;
const workspaceFile = (file: string) => path.join(home, 'workspace', 'pincer', 'notes', file);

it('asks on the terminal; yes writes, no and silence do not; the audit shows each answer', async () => {
  const yes = await run('a.md', 'y\n');
  expect(yes.code).toBe(0);
  expect(yes.stderr).toContain('Approve fs/write {"path":"notes/a.md","content":"buy milk"}?');
  expect(yes.stderr).toContain('rule default/approve-filesystem-writes');
  expect(await readFile(workspaceFile('a.md'), 'utf8')).toBe('buy milk');

  const no = await run('b.md', 'n\n');
  expect(no.code).toBe(0);
  await expect(readFile(workspaceFile('b.md'))).rejects.toThrow();
  const noResult = JSON.stringify(server.requests.at(-1)?.body);
  expect(noResult).toContain('-32013');

  const silent = await run('c.md', undefined);
  expect(silent.stderr).toContain('no answer (input closed): denied');
  await expect(readFile(workspaceFile('c.md'))).rejects.toThrow();

  const audit = await runBuiltCli(['audit', '--run', runIdOf(yes.stdout), '--json'], {
    env: env(),
  });
  const rows = JSON.parse(audit.stdout) as Array<{
    event: string;
    decision: string | null;
    approvalBy: string | null;
    tool: string | null;
  }>;
  expect(rows.map((r) => `${r.event}:${r.decision ?? r.approvalBy ?? ''}`)).toEqual([
    'requested:',
    'decided:ask',
    'approval_requested:',
    'approval_resolved:approved',
    'started:',
    'finished:',
    'run_finished:',
  ]);
  expect(rows.find((r) => r.event === 'approval_resolved')).toMatchObject({
    approvalBy: 'terminal',
    tool: 'fs/write',
  });
  const text = await runBuiltCli(['audit', '--run', runIdOf(no.stdout)], { env: env() });
  expect(text.stdout).toMatch(/fs\/write +approval_resolved +denied, by terminal/);
  const silentAudit = await runBuiltCli(['audit', '--run', runIdOf(silent.stdout)], { env: env() });
  expect(silentAudit.stdout).toMatch(/approval_resolved +denied, by terminal \(no answer\)/);
}, 120_000);

it('pincer chat takes the approval answer from its own prompt, not as the next chat line', async () => {
  server.reply(
    { kind: 'sse', frames: writeCall('chat.md') },
    { kind: 'sse', frames: openaiFrames({ text: ['saved it'] }) },
    { kind: 'sse', frames: openaiFrames({ text: ['second answer'] }) },
  );
  const before = server.requests.length;
  const result = await runBuiltCli(
    ['chat', '--protocol', 'openai', '--endpoint', server.url, '--model', 'm'],
    {
      env: env(),
      input: 'save it\ny\nand now?\n/exit\n',
    },
  );
  expect(result.code).toBe(0);
  expect(await readFile(workspaceFile('chat.md'), 'utf8')).toBe('buy milk');
  expect(result.stdout).toContain('saved it');
  expect(result.stdout).toContain('second answer');
  // Three model calls: the tool call, the answer after it, and the reply to "and now?"; "y" was no chat line.
  const sent = server.requests.slice(before).map((r) => JSON.stringify(r.body));
  expect(sent).toHaveLength(3);
  expect(sent[2]).toContain('and now?');
  expect(sent.some((body) => body.includes('"content":"y"'))).toBe(false);
}, 60_000);
