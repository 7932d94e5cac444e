/**
 * Errors thrown in the core reach an IPC client over the real WebSocket transport with the code
 * their type names (a PincerError's category), never one guessed from a message or a look-alike.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Assistant } from '../../../src/main/core/assistant/index.js';
import { type Gateway, startGateway } from '../../../src/main/core/gateway/server.js';
import { createCoreHandlers } from '../../../src/main/core/ipc/handlers.js';
import { MemoryError } from '../../../src/main/core/memory/errors.js';
import { ModelError } from '../../../src/main/core/models/errors.js';
import { SkillError } from '../../../src/main/core/skills/errors.js';
import { ConfinementError } from '../../../src/main/core/workspace-fs/errors.js';
import type { ChannelName } from '../../../src/shared/ipc.js';
import type { ServerFrame } from '../../../src/shared/wire.js';
import { type AssistantFixture, scriptedAssistant } from '../../support/assistant-harness.js';

let gateway: Gateway;
let fixture: AssistantFixture;
let rendererDir = '';
/** What the next `settings.get` throws: each test sets it before calling. */
let toThrow: unknown;

beforeAll(async () => {
  rendererDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-gw-errors-'));
  fixture = await scriptedAssistant({ delayMs: 1 });
  // The real assistant, but its settings throw what a test says: the core's own handlers
  // (with their scrubbing) and the gateway's dispatch carry it.
  const assistant: Assistant = Object.assign(Object.create(fixture.assistant), {
    settings: () => {
      throw toThrow;
    },
  });
  gateway = await startGateway({
    rendererDir,
    token: 'errors-token',
    handlers: createCoreHandlers({ assistant, electronVersion: null }),
  });
});
afterAll(async () => {
  await gateway?.close();
  await fixture?.close();
  await rm(rendererDir, { recursive: true, force: true });
});

/** One authenticated connection; `call` resolves to the result frame of one call. */
async function connect() {
  const ws = new WebSocket(`ws://127.0.0.1:${gateway.port}/ipc`);
  const results = new Map<number, (result: unknown) => void>();
  let welcomed: () => void = () => {};
  const welcome = new Promise<void>((resolve) => {
    welcomed = resolve;
  });
  ws.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as ServerFrame;
    if (frame.type === 'welcome') welcomed();
    if (frame.type === 'result') results.get(frame.id)?.(frame.result);
  });
  await new Promise<void>((resolve, reject) => {
    ws.on('open', () => resolve());
    ws.on('error', reject);
  });
  ws.send(JSON.stringify({ type: 'hello', token: 'errors-token' }));
  await welcome;
  let next = 0;
  const call = (channel: ChannelName, request: unknown) =>
    new Promise<unknown>((resolve) => {
      const id = ++next;
      results.set(id, resolve);
      ws.send(JSON.stringify({ type: 'call', id, channel, request }));
    });
  return { call, close: () => ws.close() };
}

describe('a thrown error reaches the IPC client with the code its type names', () => {
  it('module errors of every layer, by category', async () => {
    const { call, close } = await connect();
    const cases: Array<[unknown, string]> = [
      [new SkillError('not_found', 'no skill named "x"'), 'not_found'],
      [new ConfinementError('too_large', '"a.txt" is 9 bytes; the limit is 1'), 'too_large'],
      [new MemoryError('bad_input', 'an empty query'), 'invalid_request'],
      [new ModelError('invalid_request', 'no endpoint configured'), 'invalid_request'],
      [new ConfinementError('outside', '"../x" is outside the workspace'), 'internal'],
      // Neither a plain error nor one that only looks coded is trusted with a code.
      [new Error('disk exploded'), 'internal'],
      [Object.assign(new Error('looks coded'), { code: 'not_found' }), 'internal'],
    ];
    for (const [error, code] of cases) {
      toThrow = error;
      const result = await call('settings.get', {});
      expect(result, String(error)).toEqual({
        ok: false,
        error: { code, message: `settings.get: ${(error as Error).message}` },
      });
    }
    close();
  });

  it('a real handler: an unknown session is not_found, with no path in the message', async () => {
    const { call, close } = await connect();
    const result = (await call('sessions.rename', {
      sessionId: 'no-such-session',
      title: 'renamed',
    })) as { ok: boolean; error?: { code: string; message: string } };
    expect(result).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(result.error?.message).toContain('no-such-session');
    expect(result.error?.message).not.toContain(fixture.dataDir);
    close();
  });

  it('the data directory in a thrown message is scrubbed before it leaves', async () => {
    const { call, close } = await connect();
    toThrow = new MemoryError('unreadable', `${fixture.dataDir}/memory/notes.md cannot be read`);
    const result = (await call('settings.get', {})) as { error: { code: string; message: string } };
    expect(result.error.code).toBe('internal');
    expect(result.error.message).not.toContain(fixture.dataDir);
    close();
  });
});
