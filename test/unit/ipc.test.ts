/**
 * The IPC contract: every channel accepts a well-formed request and refuses malformed ones
 * (wrong types, missing fields, extra fields, oversized values), and dispatch enforces it in
 * front of the real assistant's handlers.
 */
import { realpath, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch, type IpcHandlers } from '../../src/main/core/ipc/dispatch.js';
import { createCoreHandlers } from '../../src/main/core/ipc/handlers.js';
import {
  type AppInfo,
  AssistantEventSchema,
  type ChannelName,
  channelNames,
  IpcCallError,
  type IpcResult,
  ipcContract,
  MAX_MESSAGE_CHARS,
  MAX_REQUEST_BYTES,
  MAX_SEND_REQUEST_BYTES,
  type RequestOf,
  unwrapResult,
} from '../../src/shared/ipc.js';
import { type AssistantFixture, scriptedAssistant } from '../support/assistant-harness.js';

const ID = 'ses_0mwt7ln1x0000d57048ca';
const long = (n: number) => 'x'.repeat(n);

/** One valid request and several invalid ones for every channel (the type forces full coverage). */
const samples: { [C in ChannelName]: { valid: RequestOf<C>; invalid: unknown[] } } = {
  'app.getInfo': { valid: {}, invalid: [null, [], { x: 1 }] },
  'sessions.list': { valid: {}, invalid: [null, 'all', { limit: 3 }] },
  'sessions.create': {
    valid: { title: 'Plans' },
    invalid: [{ title: '' }, { title: long(201) }, { title: 3 }],
  },
  'sessions.rename': {
    valid: { sessionId: ID, title: 'New' },
    invalid: [
      { sessionId: ID },
      { sessionId: '../etc', title: 'x' },
      { sessionId: ID, title: '   ' },
    ],
  },
  'sessions.delete': {
    valid: { sessionId: ID },
    invalid: [{}, { sessionId: '' }, { sessionId: long(101) }],
  },
  'sessions.branch': {
    valid: { sessionId: ID, messageId: 'msg_1' },
    invalid: [{ sessionId: ID }, { sessionId: ID, messageId: 'a b' }],
  },
  'sessions.history': { valid: { sessionId: ID }, invalid: [{ sessionId: 1 }, { id: ID }] },
  'chat.send': {
    valid: { text: 'hello', sessionId: ID, attachments: [{ name: 'notes.md', text: '# hi' }] },
    invalid: [
      { text: 'hi', attachments: [{ name: '../x', text: 'x' }] },
      { text: 'hi', attachments: [{ name: 'a\nb', text: 'x' }] },
      { text: 'hi', attachments: [{ name: 'big.txt', text: long(256 * 1024 + 1) }] },
      {
        text: 'hi',
        attachments: Array.from({ length: 9 }, (_, i) => ({ name: `${i}`, text: '' })),
      },
      { text: 'hi', attachments: [{ name: 'x.png', text: '', mediaType: 'image/png' }] },
      { text: '' },
      { text: '   ' },
      { text: long(MAX_MESSAGE_CHARS + 1) },
      { text: 'hi', sessionId: 'no spaces allowed' },
      { text: 'hi', model: 'gpt' },
    ],
  },
  'sessions.tools.get': {
    valid: { sessionId: ID },
    invalid: [{}, { sessionId: '' }, { sessionId: ID, tool: 'fs/read' }],
  },
  'sessions.tools.set': {
    valid: { sessionId: ID, tool: 'mcp/notes/find-note', enabled: false },
    invalid: [
      { sessionId: ID, tool: 'fs/read' },
      { sessionId: ID, tool: 'FS/Read', enabled: false },
      { sessionId: ID, tool: '../x', enabled: false },
      { sessionId: ID, tool: 'fs/read', enabled: 'no' },
      { sessionId: ID, tool: long(201), enabled: true },
      { sessionId: ID, tool: 'fs/read', enabled: true, scope: 'all' },
    ],
  },
  'sessions.search': {
    valid: { query: 'zebra' },
    invalid: [{ query: '' }, { query: '   ' }, { query: 'x'.repeat(201) }],
  },
  'sessions.export': {
    valid: { sessionId: 'ses_1', format: 'markdown' },
    invalid: [
      { sessionId: 'ses_1', format: 'pdf' },
      { sessionId: '../x', format: 'json' },
    ],
  },
  'chat.cancel': { valid: { runId: 'run_1' }, invalid: [{}, { runId: null }] },
  'runs.list': { valid: { limit: 10 }, invalid: [{ limit: 0 }, { limit: 501 }, { limit: 1.5 }] },
  'runs.get': { valid: { runId: 'run_1' }, invalid: [{}, { runId: ['run_1'] }] },
  'runs.events': { valid: { runId: 'run_1' }, invalid: [{ runId: '' }] },
  'approvals.list': { valid: {}, invalid: [{ all: true }] },
  'approvals.resolve': {
    valid: { approvalId: 'apr_1', verdict: 'deny', reason: 'not now' },
    invalid: [
      { approvalId: 'apr_1', verdict: 'maybe' },
      { approvalId: 'apr_1' },
      { approvalId: 'apr_1', verdict: 'deny', reason: long(501) },
    ],
  },
  'inputs.list': { valid: {}, invalid: [{ all: true }] },
  'inputs.resolve': {
    valid: {
      inputId: 'inp_1',
      action: 'accept',
      content: { name: 'Ada', age: 36, subscribe: true },
    },
    invalid: [
      { inputId: 'inp_1' },
      { inputId: 'inp_1', action: 'maybe' },
      { inputId: '../x', action: 'decline' },
      { inputId: 'inp_1', action: 'accept', content: { nested: { a: 1 } } },
      { inputId: 'inp_1', action: 'accept', content: { list: ['a'] } },
      { inputId: 'inp_1', action: 'accept', content: { text: long(10_001) } },
      {
        inputId: 'inp_1',
        action: 'accept',
        content: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`f${i}`, i])),
      },
      { inputId: 'inp_1', action: 'decline', extra: true },
    ],
  },
  'models.list': { valid: {}, invalid: [{ kind: 'chat' }] },
  'models.gpu': { valid: {}, invalid: [{ refresh: true }] },
  'background.setPaused': { valid: { paused: true }, invalid: [{}, { paused: 'yes' }] },
  'models.pull': {
    valid: { name: 'qwen2.5-0.5b-instruct' },
    invalid: [{}, { name: '' }, { url: 'http://x' }],
  },
  'models.select': {
    valid: { id: 'connection:ollama:qwen2.5:7b', sessionId: 'ses_1' },
    invalid: [{ id: long(401) }, { path: '/etc/passwd' }, { id: 'local:a\nb' }, { name: 'x' }],
  },
  'models.import.begin': {
    valid: { fileName: 'my model.gguf', sizeBytes: 4096 },
    invalid: [
      { fileName: 'x.gguf', sizeBytes: 0 },
      { fileName: 'x.gguf', sizeBytes: 1.5 },
      { fileName: '', sizeBytes: 1 },
      { fileName: 'x.gguf', sizeBytes: 1, path: '/etc' },
    ],
  },
  'models.import.chunk': {
    valid: { importId: 'imp_1', offset: 0, data: 'R0dVRg==' },
    invalid: [
      { importId: 'imp_1', offset: -1, data: 'R0dVRg==' },
      { importId: 'imp_1', offset: 0, data: 'not base64!' },
      { importId: 'imp_1', offset: 0, data: 'A'.repeat(699_053) },
    ],
  },
  'models.import.finish': { valid: { importId: 'imp_1' }, invalid: [{}, { importId: '../x' }] },
  'models.import.cancel': { valid: { importId: 'imp_1' }, invalid: [{ importId: '' }] },
  'models.load': { valid: {}, invalid: [{ name: 'x' }] },
  'models.unload': { valid: {}, invalid: [{ force: true }] },
  'providers.list': { valid: {}, invalid: [{ values: true }] },
  'providers.test': {
    valid: { kind: 'openai-compatible', endpoint: 'http://127.0.0.1:11434/v1' },
    invalid: [
      { kind: 'ftp' },
      { kind: 'openai-compatible', endpoint: 'file:///etc/passwd' },
      { kind: 'openai', key: '' },
      { kind: 'openai', name: '../x' },
    ],
  },
  'providers.add': {
    valid: { name: 'ollama', kind: 'openai-compatible', endpoint: 'http://127.0.0.1:11434/v1' },
    invalid: [
      { kind: 'openai' },
      { name: 'bad name', kind: 'openai', key: 'k' },
      { name: 'x', kind: 'openai', key: long(16_385) },
      { name: 'x', kind: 'openai', keyName: 'OPENAI_API_KEY' },
    ],
  },
  'providers.remove': { valid: { name: 'ollama' }, invalid: [{}, { name: 'a/b' }] },
  'secrets.list': { valid: {}, invalid: [{ withValues: true }] },
  'secrets.set': {
    valid: { name: 'OPENAI_API_KEY', value: 'sk-test' },
    invalid: [
      { name: 'OPENAI_API_KEY', value: '' },
      { name: 'bad name', value: 'v' },
      { name: 'K', value: long(16_385) },
    ],
  },
  'secrets.delete': { valid: { name: 'OPENAI_API_KEY' }, invalid: [{ name: '../x' }, {}] },
  'policies.get': { valid: {}, invalid: [{ x: 1 }] },
  'policies.setAutonomy': { valid: { autonomy: 'observer' }, invalid: [{ autonomy: 'god' }, {}] },
  'skills.list': { valid: {}, invalid: [{ x: 1 }] },
  'skills.add': {
    valid: { file: { name: 'SKILL.md', text: '---\nname: x\n---\nbody' }, replace: true },
    invalid: [
      { file: { name: '../SKILL.md', text: 'x' } },
      { file: { name: 'SKILL.md', text: '' } },
      { file: { name: 'SKILL.md', text: long(256 * 1024 + 1) } },
      { file: { name: 'SKILL.md', text: 'x', path: '/etc/passwd' } },
      { path: '/tmp/SKILL.md' },
    ],
  },
  'skills.setEnabled': {
    valid: { name: 'summarise', enabled: false },
    invalid: [{ name: '', enabled: true }, { name: 'x' }, { name: 'x', enabled: 'no' }],
  },
  'memory.search': { valid: { query: 'cats' }, invalid: [{ query: '' }, { query: long(2001) }] },
  'memory.add': {
    valid: { text: 'the cat is called Tom', name: 'cats.md' },
    invalid: [{ text: '   ' }, { text: long(256 * 1024 + 1) }, { text: 'x', name: 'a/b.md' }, {}],
  },
  'desktop.get': { valid: {}, invalid: [{ x: 1 }] },
  'desktop.set': {
    valid: { globalShortcut: 'Control+Alt+Space', startAtLogin: true },
    invalid: [
      { globalShortcut: '' },
      { globalShortcut: long(101) },
      { closeToTray: 'yes' },
      { updateFeedUrl: 'https://example.invalid/feed' },
    ],
  },
  'settings.get': { valid: {}, invalid: [{ theme: 'dark' }] },
  'settings.set': {
    valid: { theme: 'dark', contextSize: 4096 },
    invalid: [
      { theme: 'pink' },
      { enterSends: 'yes' },
      { font: 'x' },
      { temperature: 2.5 },
      { temperature: '0.3' },
      { systemPrompt: 'x'.repeat(8001) },
      { contextSize: 3000 },
      { contextSize: '4096' },
      { contextSize: 'auto' },
    ],
  },
  'workspace.get': { valid: {}, invalid: [null, { path: '/' }] },
  'workspace.open': {
    valid: { path: 'notes/todo.md' },
    invalid: [{ path: '' }, { path: 'a\nb' }, { path: long(4097) }, { path: 3 }, { dir: 'x' }],
  },
  'openaiEndpoint.get': { valid: {}, invalid: [{ key: 'x' }] },
  'openaiEndpoint.set': {
    valid: { enabled: false },
    invalid: [{ enabled: 'yes' }, { port: 70000 }, { port: 1.5 }, { host: '' }, { key: 'x' }],
  },
  'openaiEndpoint.rotateKey': { valid: {}, invalid: [{ key: 'x' }] },
  'openaiEndpoint.log': { valid: {}, invalid: [{ limit: 5 }] },
  'mcp.list': { valid: {}, invalid: [{ name: 'x' }] },
  'mcp.add': {
    valid: { name: 'web', url: 'http://127.0.0.1:1/mcp' },
    invalid: [{}, { name: '' }, { name: 'x', command: '' }, { name: 'x', env: {} }],
  },
  'mcp.setEnabled': {
    valid: { name: 'web', enabled: false },
    invalid: [{ name: 'web' }, { name: 'web', enabled: 'no' }],
  },
  'mcp.remove': { valid: { name: 'web' }, invalid: [{}, { name: 1 }] },
  'background.held': { valid: {}, invalid: [null, { channel: 'x' }] },
  'channels.list': { valid: {}, invalid: [[], { name: 'phone' }] },
  'channels.approvePairing': {
    valid: { code: 'ABCD 2345' },
    invalid: [
      {},
      { code: '' },
      { code: 'AB' },
      { code: 'ABC-2345' },
      { code: long(33) },
      { code: 7 },
    ],
  },
  'channels.rejectPairing': {
    valid: { code: 'ABCD2345' },
    invalid: [{}, { code: 'x\n' }, { code: 'ABCD2345', channel: 'phone' }],
  },
};

let fixture: AssistantFixture;
let handlers: IpcHandlers;
beforeAll(async () => {
  fixture = await scriptedAssistant({ delayMs: 1 });
  handlers = createCoreHandlers({ assistant: fixture.assistant, electronVersion: null });
});
afterAll(() => fixture?.close());

describe('the contract', () => {
  it('covers exactly the channels the samples name', () => {
    expect(Object.keys(samples).sort()).toEqual([...channelNames].sort());
  });

  for (const channel of channelNames) {
    it(`${channel}: accepts its valid request and refuses each invalid one`, async () => {
      const { valid, invalid } = samples[channel];
      const schema = ipcContract[channel].request;
      expect(schema.safeParse(valid).success).toBe(true);
      for (const bad of invalid) {
        expect(schema.safeParse(bad).success, JSON.stringify(bad).slice(0, 80)).toBe(false);
        const result = await dispatch(handlers, channel, bad);
        expect(result).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
      }
    });
  }
});

describe('dispatch in front of the real assistant', () => {
  it('answers app.getInfo without any path', async () => {
    const result = await dispatch(handlers, 'app.getInfo', {});
    expect(result).toMatchObject({
      ok: true,
      value: { name: 'Pincer', electron: null, transport: 'gateway', node: process.versions.node },
    });
    // The backend this machine's probe chose (the status bars show it).
    expect(unwrapResult(result as IpcResult<AppInfo>).sandbox).toMatch(
      /^(bwrap|seatbelt|process)$/,
    );
    expect(JSON.stringify(result)).not.toContain(fixture.dataDir);
  });

  it('creates, renames, lists and deletes a session', async () => {
    const created = unwrapResult(
      await dispatch(handlers, 'sessions.create', { title: 'Plans' }),
    ) as {
      id: string;
    };
    await dispatch(handlers, 'sessions.rename', { sessionId: created.id, title: 'Trip plans' });
    const listed = unwrapResult(await dispatch(handlers, 'sessions.list', {})) as Array<{
      id: string;
      title: string;
    }>;
    expect(listed.find((s) => s.id === created.id)?.title).toBe('Trip plans');
    expect(await dispatch(handlers, 'sessions.delete', { sessionId: created.id })).toEqual({
      ok: true,
      value: { ok: true },
    });
    const after = unwrapResult(await dispatch(handlers, 'sessions.list', {})) as Array<{
      id: string;
    }>;
    expect(after.some((s) => s.id === created.id)).toBe(false);
    expect(await dispatch(handlers, 'sessions.history', { sessionId: created.id })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
  });

  it('names the workspace, and reveals only what is inside it where the surface can', async () => {
    const view = unwrapResult(await dispatch(handlers, 'workspace.get', {})) as {
      path: string;
      canOpen: boolean;
    };
    expect(view.canOpen).toBe(false);
    expect(await stat(view.path).then((s) => s.isDirectory())).toBe(true);
    expect(await dispatch(handlers, 'workspace.open', {})).toMatchObject({
      ok: false,
      error: { code: 'invalid_request' },
    });

    const revealed: Array<{ path: string; isFolder: boolean }> = [];
    const desktop = createCoreHandlers({
      assistant: fixture.assistant,
      electronVersion: '0',
      reveal: async (target) => {
        revealed.push(target);
      },
    });
    expect(unwrapResult(await dispatch(desktop, 'workspace.get', {}))).toEqual({
      path: view.path,
      canOpen: true,
    });
    await writeFile(path.join(view.path, 'made.txt'), 'x');
    expect(await dispatch(desktop, 'workspace.open', {})).toEqual({
      ok: true,
      value: { ok: true },
    });
    expect(await dispatch(desktop, 'workspace.open', { path: 'made.txt' })).toMatchObject({
      ok: true,
    });
    expect(revealed).toEqual([
      { path: await realpath(view.path), isFolder: true },
      { path: path.join(await realpath(view.path), 'made.txt'), isFolder: false },
    ]);
    for (const outside of ['../escape', '/etc/passwd']) {
      expect(await dispatch(desktop, 'workspace.open', { path: outside })).toMatchObject({
        ok: false,
        error: { code: 'invalid_request' },
      });
    }
    expect(await dispatch(desktop, 'workspace.open', { path: 'absent.txt' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    expect(revealed).toHaveLength(2);
  });

  it('refuses unknown channels, including prototype keys', async () => {
    for (const channel of ['fs.readFile', '__proto__', 'constructor', 'toString', 42, null]) {
      const result = await dispatch(handlers, channel, {});
      expect(result).toMatchObject({ ok: false, error: { code: 'unknown_channel' } });
    }
  });

  it('names the offending field', async () => {
    const extra = await dispatch(handlers, 'app.getInfo', { sneaky: true });
    expect(extra.ok ? '' : extra.error.message).toContain('sneaky');
    const missing = await dispatch(handlers, 'chat.cancel', {});
    expect(missing.ok ? '' : missing.error.message).toContain('runId');
  });

  it('refuses oversized requests before parsing them', async () => {
    const result = await dispatch(handlers, 'sessions.create', {
      title: 'x'.repeat(MAX_REQUEST_BYTES),
    });
    expect(result).toMatchObject({ ok: false, error: { code: 'too_large' } });
    // chat.send alone is sized for images, and still bounded.
    const send = await dispatch(handlers, 'chat.send', {
      text: 'x'.repeat(MAX_SEND_REQUEST_BYTES),
    });
    expect(send).toMatchObject({
      ok: false,
      error: {
        code: 'too_large',
        message: expect.stringContaining(`limit ${MAX_SEND_REQUEST_BYTES}`),
      },
    });
  });

  it('turns a handler exception into an internal error without a stack', async () => {
    const broken: IpcHandlers = {
      ...handlers,
      'settings.get': () => {
        throw new Error('disk exploded');
      },
    };
    expect(await dispatch(broken, 'settings.get', {})).toEqual({
      ok: false,
      error: { code: 'internal', message: 'settings.get: disk exploded' },
    });
  });

  it('rejects a handler reply that breaks the contract, and strips fields it lacks', async () => {
    const lying: IpcHandlers = { ...handlers, 'settings.get': () => ({ theme: 7 }) as never };
    expect(await dispatch(lying, 'settings.get', {})).toMatchObject({
      ok: false,
      error: { code: 'internal' },
    });
    const leaky: IpcHandlers = {
      ...handlers,
      'models.list': async () => ({
        ...(await handlers['models.list']({})),
        modelsDir: '/secret/path',
      }),
    };
    const result = await dispatch(leaky, 'models.list', {});
    expect(result.ok).toBe(true);
    expect(JSON.stringify(result)).not.toContain('/secret/path');
  });

  it('refuses an event that breaks the event schema', () => {
    expect(AssistantEventSchema.safeParse({ topic: 'sessions.changed' }).success).toBe(true);
    expect(AssistantEventSchema.safeParse({ topic: 'shell.exec', command: 'rm' }).success).toBe(
      false,
    );
    expect(
      AssistantEventSchema.safeParse({
        topic: 'run',
        sessionId: ID,
        event: { type: 'model.delta' },
      }).success,
    ).toBe(false);
  });

  it('unwrapResult gives the value or throws a coded error', () => {
    expect(unwrapResult({ ok: true, value: 3 })).toBe(3);
    const call = () => unwrapResult({ ok: false, error: { code: 'too_large', message: 'big' } });
    expect(call).toThrow(IpcCallError);
    expect(call).toThrow('big');
  });
});
