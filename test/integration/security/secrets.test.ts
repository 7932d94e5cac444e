/**
 * Issue 24, break 5: a stored secret the run never used, planted in a workspace file and read
 * with fs/read, must be redacted before the model, the pushed events (through the real gateway
 * over WebSocket) and the database see it. The store has every backend `npm test` can offer:
 * the safeStorage vault (a real AES-GCM stand-in for Electron's), the passphrase vault and an
 * environment variable. The OS keychain goes through the same loader (SecretBackend list/get);
 * it is exercised against a real Secret Service in test/integration/secrets/keychain.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type Assistant, createAssistant } from '../../../src/main/core/assistant/index.js';
import { type Gateway, startAssistantGateway } from '../../../src/main/core/gateway/server.js';
import { viaProvider } from '../../../src/main/core/models/access.js';
import type { ModelRequest } from '../../../src/main/core/models/types.js';
import { ContentScanner } from '../../../src/main/core/policy/scanner.js';
import { Redactor } from '../../../src/main/core/redaction/index.js';
import {
  createSecretStore,
  passphraseVault,
  SecretStore,
  safeStorageVault,
} from '../../../src/main/core/secrets/index.js';
import { loadKnownSecrets } from '../../../src/main/core/secrets/known.js';
import { openDatabase, profileDatabasePath } from '../../../src/main/core/storage/index.js';
import { APP_DIR } from '../../support/assistant-harness.js';
import { ScriptedProvider } from '../../support/scripted-provider.js';
import { FAST_SCRYPT, testEncryptor } from '../../support/secrets.js';

// Values no credential pattern matches: only the registry of stored secrets can catch them.
const PLANTED = {
  VAULT_PLANTED: 'vault-value-Q7x2mZ9kLp4w',
  SAFE_PLANTED: 'safe-value-R3n8vB6jHt1y',
  OPENAI_API_KEY: 'env-value-W5c4sD2fGa9u',
};
const PASSPHRASE = 'security-suite-passphrase';
const FILE = 'notes/keys.txt';

let dataDir = '';
let rendererDir = '';
let assistant: Assistant;
let gateway: Gateway;
const requests: ModelRequest[] = [];

function secretStore(encryptor: ReturnType<typeof testEncryptor>): SecretStore {
  return createSecretStore({
    dataDir,
    encryptor,
    env: {
      PINCER_KEYCHAIN: 'off',
      PINCER_VAULT_PASSPHRASE: PASSPHRASE,
      OPENAI_API_KEY: PLANTED.OPENAI_API_KEY,
    },
    scrypt: FAST_SCRYPT,
  });
}

/** Reads the planted file, then repeats what the tool said (as a model quoting its input). */
function readThenQuote(request: ModelRequest) {
  const result = request.messages.at(-1)?.content.find((b) => b.type === 'tool_result');
  if (result?.type === 'tool_result') {
    const content = typeof result.content === 'string' ? result.content : '';
    return { text: ['The file says: ', content] };
  }
  return { toolCalls: [{ name: 'fs/read', input: { path: FILE } }] };
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-sec-secrets-'));
  rendererDir = path.join(dataDir, 'renderer');
  await mkdir(rendererDir);
  await writeFile(path.join(rendererDir, 'index.html'), '<!doctype html><title>ui</title>');
  const encryptor = testEncryptor();
  // Stored straight into the backends: nothing in this process has read them yet.
  await passphraseVault(
    dataDir,
    { PINCER_VAULT_PASSPHRASE: PASSPHRASE },
    undefined,
    FAST_SCRYPT,
  ).set('VAULT_PLANTED', PLANTED.VAULT_PLANTED);
  await safeStorageVault(dataDir, encryptor).set('SAFE_PLANTED', PLANTED.SAFE_PLANTED);
  const provider = new ScriptedProvider((request) => {
    requests.push(request);
    return readThenQuote(request);
  });
  assistant = await createAssistant({
    dataDir,
    appDir: APP_DIR,
    model: {
      kind: 'fixed',
      access: viaProvider(provider, 'scripted'),
      label: 'scripted/test',
      scripted: true,
    },
    secrets: secretStore(encryptor),
  });
  assistant.subscribe((event) => {
    if (event.topic === 'approval.requested')
      queueMicrotask(() => assistant.resolveApproval(event.approval.id, 'approve'));
  });
  gateway = await startAssistantGateway({ assistant, rendererDir, token: 'sec-token-1234' });
});

afterAll(async () => {
  await gateway?.close();
  await assistant?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** Sends one message over the gateway and collects every frame up to the run's end. */
async function sendOverGateway(text: string): Promise<string[]> {
  const ws = new WebSocket(`ws://127.0.0.1:${gateway.port}/ipc`);
  const frames: string[] = [];
  await new Promise<void>((resolve, reject) => {
    ws.on('error', reject);
    ws.on('open', () => ws.send(JSON.stringify({ type: 'hello', token: 'sec-token-1234' })));
    ws.on('message', (data) => {
      const raw = data.toString();
      frames.push(raw);
      const frame = JSON.parse(raw) as { type: string; event?: { event?: { type?: string } } };
      if (frame.type === 'welcome')
        ws.send(JSON.stringify({ type: 'call', id: 1, channel: 'chat.send', request: { text } }));
      if (frame.event?.event?.type === 'run.finished') resolve();
    });
  });
  ws.close();
  return frames;
}

function expectScreened(what: string, text: string, names = Object.keys(PLANTED)) {
  for (const [name, value] of Object.entries(PLANTED)) {
    expect(text, `${what} carries ${name}`).not.toContain(value);
    if (names.includes(name))
      expect(text, `${what} lacks [REDACTED:${name}]`).toContain(`[REDACTED:${name}]`);
  }
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

describe('stored secrets are screened before anything sees tool output (break 5)', () => {
  let frames: string[] = [];

  beforeAll(async () => {
    const workspace = path.join(dataDir, 'workspace', 'pincer');
    await mkdir(path.join(workspace, 'notes'), { recursive: true });
    const lines = Object.entries(PLANTED).map(([name, value]) => `${name.toLowerCase()} ${value}`);
    await writeFile(path.join(workspace, FILE), `${lines.join('\n')}\n`);
    frames = await sendOverGateway('what is in my notes?');
  });

  it('the model request carries the markers, not the values', () => {
    expect(requests.length).toBe(2);
    expectScreened('the second model request', JSON.stringify(requests[1]));
  });

  it('the gateway pushes tool.finished with screened output, and no frame carries a value', () => {
    const finished = frames
      .map((raw) => JSON.parse(raw) as { event?: { event?: { type?: string; output?: string } } })
      .find((frame) => frame.event?.event?.type === 'tool.finished');
    expect(finished?.event?.event?.output, 'tool.finished output').toBeTypeOf('string');
    expectScreened('tool.finished output', finished?.event?.event?.output ?? '');
    expectScreened('the pushed frames', frames.join('\n'));
  });

  it('the messages and tool_calls rows hold the markers, and no file of the profile holds a value', async () => {
    const db = openDatabase(profileDatabasePath(dataDir));
    try {
      const messages = db.prepare('select content from messages').all() as Array<{
        content: string;
      }>;
      const calls = db.prepare('select input, result from tool_calls').all() as Array<{
        input: string;
        result: string | null;
      }>;
      expect(calls.length).toBe(1);
      expectScreened('tool_calls.result', calls[0]?.result ?? '');
      expectScreened('messages', messages.map((m) => m.content).join('\n'));
    } finally {
      db.close();
    }
    for (const file of await filesUnder(dataDir)) {
      if (file.endsWith(FILE)) continue;
      const bytes = await readFile(file);
      for (const [name, value] of Object.entries(PLANTED))
        expect(bytes.includes(value), `${file} holds ${name}`).toBe(false);
    }
  });
});

describe('loadKnownSecrets', () => {
  it('registers every value of every available backend, and names what it could not read', async () => {
    const encryptor = testEncryptor();
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-known-'));
    try {
      const vault = passphraseVault(dir, { PINCER_VAULT_PASSPHRASE: 'pw' }, undefined, FAST_SCRYPT);
      await vault.set('ONE', 'first-stored-value');
      await safeStorageVault(dir, encryptor).set('TWO', 'second-stored-value');
      const locked = passphraseVault(dir, {}, undefined, FAST_SCRYPT);
      const store = new SecretStore([safeStorageVault(dir, encryptor), locked, vault]);
      const redactor = new Redactor();
      const report = await loadKnownSecrets(store, redactor);
      expect(report.registered).toBe(2);
      expect(report.unavailable).toEqual([
        { backend: 'vault', reason: expect.stringContaining('no passphrase') },
      ]);
      expect(redactor.redact('a first-stored-value b second-stored-value').text).toBe(
        'a [REDACTED:ONE] b [REDACTED:TWO]',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses to go on blind when a backend is there but cannot be read (wrong passphrase)', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-known-'));
    try {
      await passphraseVault(dir, { PINCER_VAULT_PASSPHRASE: 'right' }, undefined, FAST_SCRYPT).set(
        'ONE',
        'first-stored-value',
      );
      const wrong = passphraseVault(
        dir,
        { PINCER_VAULT_PASSPHRASE: 'wrong' },
        undefined,
        FAST_SCRYPT,
      );
      await expect(
        loadKnownSecrets(new SecretStore([wrong]), new Redactor()),
      ).rejects.toMatchObject({ name: 'SecretsError', code: 'unavailable' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('PWD is not a secret', () => {
  it("the scanner leaves a command's real working directory alone, and still catches a password", () => {
    const cwd = path.join(dataDir, 'workspace', 'pincer');
    // A real shell's environment: PWD is a temp path with random letters in it.
    const env = spawnSync('sh', ['-c', 'env'], { cwd, encoding: 'utf8', env: {} }).stdout;
    expect(env).toContain(`PWD=${cwd}`);
    const scanner = new ContentScanner({ redactor: new Redactor() });
    const screened = scanner.screenToolOutput(`${env}password=x9F2kLmQ7zAb\n`).content;
    expect(screened).toContain(`PWD=${cwd}`);
    expect(screened).toContain('password=[REDACTED:secret-assignment]');
  });
});
