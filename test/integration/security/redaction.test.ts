/**
 * Issue 33, break 8: a stored secret reached people and machines past the redaction. A model
 * that answers with it (whole, or in 6-character deltas) reached `pincer run`'s stdout, the
 * stored messages, `runs show` and the `model.delta` events; a tool whose output carries it
 * base64url-encoded, shifted in base64, in hex, fully %-encoded, split across lines or with ANSI
 * codes between its characters reached the model, the database and the telemetry export. The
 * built CLI runs against a vendor server on 127.0.0.1; the tool run goes through the real agent
 * with a real fs/read in the sandbox and the manifest's JSON-lines exporter.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAgent } from '../../../src/main/core/agent/index.js';
import { viaProvider } from '../../../src/main/core/models/access.js';
import type { ModelRequest } from '../../../src/main/core/models/types.js';
import { openDatabase, profileDatabasePath } from '../../../src/main/core/storage/index.js';
import { startVendorServer, type VendorServer } from '../../fixtures/vendor-server.js';
import { openaiFrames } from '../../fixtures/vendor-streams.js';
import { APP_DIR } from '../../support/assistant-harness.js';
import { runBuiltCli } from '../../support/cli-run.js';
import { OPEN_POLICY, writeClaw } from '../../support/manifest.js';
import { ScriptedProvider } from '../../support/scripted-provider.js';
import { seedFastVault, vaultSecrets } from '../../support/secrets.js';

// No credential pattern matches it: only the registry of stored values can catch it.
const SECRET = 'vault-Q7x2mZ9kLp4w/+Rn8v';
const PASSPHRASE = 'redaction-suite';
/** Parts of the secret that must not survive anywhere (its ends may border a marker). */
const CORE = SECRET.slice(3, -3);

const bytes = Buffer.from(SECRET);
const every = (fn: (char: string) => string) => [...SECRET].map(fn).join('');
/** The spellings of the break, each as it stands in the tool's output. */
const ENCODED: Record<string, string> = {
  plain: SECRET,
  base64url: bytes.toString('base64url'),
  'base64 shifted by one': Buffer.concat([Buffer.from('A'), bytes]).toString('base64'),
  'base64 shifted by two': Buffer.concat([Buffer.from('AB'), bytes]).toString('base64'),
  hex: bytes.toString('hex'),
  'fully %-encoded': every(
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  ),
  'split across lines': `${SECRET.slice(0, 8)}\n${SECRET.slice(8, 16)}\r\n${SECRET.slice(16)}`,
  'ANSI codes between characters': every((c) => `\x1b[1m${c}\x1b[0m`),
};
/** What each spelling looks like once found by a reader who decodes nothing. */
const SURFACES = Object.entries(ENCODED).map(([what, text]) => ({
  what,
  // The middle of each spelling: its edges in base64 also carry the neighbours' bits.
  needle: text.slice(Math.floor(text.length / 4), Math.ceil((3 * text.length) / 4)),
}));

let home = '';
let server: VendorServer;
beforeAll(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'pincer-redaction-'));
  server = await startVendorServer('/v1');
});
afterAll(async () => {
  await server.close();
  await rm(home, { recursive: true, force: true });
});

/** Every string in every table of the profile database, JSON columns opened up. */
function databaseStrings(dataDir: string): string[] {
  const db = openDatabase(profileDatabasePath(dataDir), { readonly: true, vectors: false });
  const out: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string') {
      out.push(value);
      try {
        collect(JSON.parse(value));
      } catch {}
    } else if (Array.isArray(value)) value.forEach(collect);
    else if (value && typeof value === 'object') Object.values(value).forEach(collect);
  };
  try {
    const tables = db
      .prepare("select name from sqlite_master where type = 'table'")
      .all() as Array<{ name: string }>;
    for (const { name } of tables) {
      try {
        collect(db.prepare(`select * from "${name}"`).all());
      } catch {
        // A virtual table whose module is not loaded (vectors): it holds no text.
      }
    }
  } finally {
    db.close();
  }
  return out;
}

describe('a model reply holding a stored secret', () => {
  const dataDir = () => path.join(home, 'cli');
  const pincer = (args: string[], input?: string) =>
    runBuiltCli(args, {
      env: {
        ...process.env,
        PINCER_HOME: dataDir(),
        HOME: home,
        PINCER_KEYCHAIN: 'off',
        PINCER_VAULT_PASSPHRASE: PASSPHRASE,
      },
      input,
    });
  const model = () => ['--protocol', 'openai-compatible', '--endpoint', server.url, '--model', 'm'];
  const reply = `The key is ${SECRET}, as asked.`;

  beforeAll(async () => {
    await mkdir(dataDir(), { recursive: true });
    await seedFastVault(dataDir(), PASSPHRASE);
    expect((await pincer(['secrets', 'set', 'STORED_KEY'], SECRET)).code).toBe(0);
  }, 60_000);

  it('whole: not on stdout, in the stored messages or in runs show', async () => {
    server.reply({ kind: 'sse', frames: openaiFrames({ text: [reply] }) });
    const run = await pincer(['run', ...model(), 'what is the key?']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('The key is ');
    expect(run.stdout).toContain('[REDACTED:STORED_KEY]');
    expect(run.stdout + run.stderr).not.toContain(CORE);
    const list = await pincer(['runs', 'list', '--json']);
    const runs = JSON.parse(list.stdout) as Array<{ id: string }>;
    const show = await pincer(['runs', 'show', runs[0]?.id ?? '']);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain('[REDACTED:STORED_KEY]');
    expect(show.stdout).not.toContain(CORE);
    for (const text of databaseStrings(dataDir())) expect(text).not.toContain(CORE);
  }, 60_000);

  it('in 6-character deltas: no model.delta event, stdout line or stored message shows it', async () => {
    const pieces = reply.match(/.{1,6}/gs) ?? [];
    server.reply({ kind: 'sse', frames: openaiFrames({ text: pieces }) });
    const run = await pincer(['run', ...model(), '--json', 'the key, slowly']);
    expect(run.code, run.stderr).toBe(0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; text?: string });
    const deltas = events.filter((event) => event.type === 'model.delta');
    expect(deltas.length).toBeGreaterThan(1);
    const shown = deltas.map((event) => event.text ?? '').join('');
    expect(shown).toBe('The key is [REDACTED:STORED_KEY], as asked.');
    // Not in any one delta, nor in any run of consecutive deltas.
    expect(run.stdout).not.toContain(CORE);
    for (const piece of pieces.filter((p) => SECRET.includes(p)))
      expect(deltas.some((event) => event.text?.includes(piece))).toBe(false);

    server.reply({ kind: 'sse', frames: openaiFrames({ text: pieces }) });
    const plain = await pincer(['run', ...model(), 'the key, slowly, on a terminal']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toBe('The key is [REDACTED:STORED_KEY], as asked.\n');
    for (const text of databaseStrings(dataDir())) expect(text).not.toContain(CORE);
  }, 60_000);

  it('quoted in a provider error: not in the reason on stderr or in the database', async () => {
    server.reply({
      kind: 'json',
      status: 400,
      body: { error: { message: `invalid value ${SECRET} in request` } },
    });
    const run = await pincer(['run', ...model(), 'fail please']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('invalid value [REDACTED:STORED_KEY] in request');
    expect(run.stdout + run.stderr).not.toContain(CORE);
    for (const text of databaseStrings(dataDir())) expect(text).not.toContain(CORE);
  }, 60_000);
});

describe('a tool output holding a stored secret in each spelling', () => {
  it('reaches neither the model, nor the database, nor the telemetry export', async () => {
    const dataDir = path.join(home, 'tool');
    const spans = path.join(dataDir, 'spans.jsonl');
    await mkdir(dataDir, { recursive: true });
    const manifest = await writeClaw(dataDir, {
      name: 'redacting',
      identity: { personality: 'A test agent.', autonomy: 'supervised' },
      policies: [OPEN_POLICY],
      telemetry: {
        exporters: [{ type: 'file', path: spans }],
        redaction: { strip_arguments: false, strip_results: false },
      },
    });
    const workspace = path.join(dataDir, 'workspace', 'redacting');
    await mkdir(workspace, { recursive: true });
    const file = Object.entries(ENCODED)
      .map(([what, text]) => `${what}: ${text}`)
      .join('\n');
    await writeFile(path.join(workspace, 'leak.txt'), file);

    const requests: ModelRequest[] = [];
    const provider = new ScriptedProvider((request) => {
      requests.push(request);
      return request.messages.at(-1)?.content.some((b) => b.type === 'tool_result')
        ? { text: 'Read it.' }
        : { toolCalls: [{ name: 'fs/read', input: { path: 'leak.txt' } }] };
    });
    // Stored by another process: this agent has not read it before the run starts.
    await vaultSecrets(dataDir, PASSPHRASE).set('STORED_KEY', SECRET);
    const agent = await openAgent({
      dataDir,
      appDir: APP_DIR,
      manifest,
      model: { kind: 'fixed', access: viaProvider(provider, 'scripted'), label: 'scripted' },
      tools: 'fs/read',
      workspace,
      secrets: vaultSecrets(dataDir, PASSPHRASE),
    });
    try {
      const handle = agent.runtime.start({ text: 'read leak.txt' });
      expect((await handle.done).outcome).toBe('completed');
    } finally {
      await agent.close();
    }

    const result = requests
      .at(-1)
      ?.messages.at(-1)
      ?.content.find((b) => b.type === 'tool_result');
    const seen = result?.type === 'tool_result' ? String(result.content) : '';
    // The control: the tool did read the file, each line's label is there, the values are not.
    for (const what of Object.keys(ENCODED)) expect(seen).toContain(`${what}: `);
    expect(seen.split('[REDACTED:STORED_KEY]').length - 1).toBeGreaterThanOrEqual(
      Object.keys(ENCODED).length,
    );
    const exported = (await readFile(spans, 'utf8')).trim().split('\n');
    const stored = databaseStrings(dataDir);
    const places = {
      'model request': [JSON.stringify(requests), seen],
      database: stored,
      'telemetry export': exported.flatMap((line) => [line, JSON.stringify(JSON.parse(line))]),
    };
    expect(exported.join('\n')).toContain('[REDACTED:STORED_KEY]');
    for (const [where, texts] of Object.entries(places))
      for (const { what, needle } of SURFACES)
        for (const text of texts)
          expect(text.includes(needle), `${what} in the ${where}`).toBe(false);
  }, 120_000);
});
