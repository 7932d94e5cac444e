import { describe, expect, it } from 'vitest';
import { dispatch } from '../../src/main/core/ipc/dispatch.js';
import { createCoreHandlers } from '../../src/main/core/ipc/handlers.js';
import { IpcCallError, MAX_REQUEST_BYTES, unwrapResult } from '../../src/shared/ipc.js';

const handlers = createCoreHandlers({
  dataDir: '/data/pincer',
  electronVersion: null,
  now: () => new Date('2026-11-22T10:00:00Z'),
});

describe('IPC dispatch against the contract', () => {
  it('answers app.getInfo with the validated app info', async () => {
    const result = await dispatch(handlers, 'app.getInfo', {});
    expect(result).toMatchObject({
      ok: true,
      value: {
        name: 'Pincer',
        dataDir: '/data/pincer',
        electron: null,
        node: process.versions.node,
      },
    });
  });

  it('answers agent.ping', async () => {
    expect(await dispatch(handlers, 'agent.ping', { message: 'hi' })).toEqual({
      ok: true,
      value: { reply: 'pong: hi', receivedAt: '2026-11-22T10:00:00.000Z' },
    });
  });

  it('refuses unknown channels, including prototype keys', async () => {
    for (const channel of ['fs.readFile', '__proto__', 'constructor', 42]) {
      const result = await dispatch(handlers, channel, {});
      expect(result).toMatchObject({ ok: false, error: { code: 'unknown_channel' } });
    }
  });

  it('refuses requests that do not match the schema, naming the field', async () => {
    const missing = await dispatch(handlers, 'agent.ping', {});
    expect(missing).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(missing.ok ? '' : missing.error.message).toContain('message');

    const extra = await dispatch(handlers, 'app.getInfo', { sneaky: true });
    expect(extra).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(extra.ok ? '' : extra.error.message).toContain('sneaky');
  });

  it('refuses oversized requests before parsing them', async () => {
    const result = await dispatch(handlers, 'agent.ping', {
      message: 'x'.repeat(MAX_REQUEST_BYTES),
    });
    expect(result).toMatchObject({ ok: false, error: { code: 'too_large' } });
  });

  it('turns a handler exception into an internal error without a stack', async () => {
    const broken = {
      ...handlers,
      'agent.ping': () => {
        throw new Error('engine exploded');
      },
    };
    const result = await dispatch(broken, 'agent.ping', { message: 'hi' });
    expect(result).toEqual({
      ok: false,
      error: { code: 'internal', message: 'agent.ping: engine exploded' },
    });
  });

  it('rejects a handler reply that breaks the contract', async () => {
    const lying = { ...handlers, 'agent.ping': () => ({ reply: 7 }) as never };
    const result = await dispatch(lying, 'agent.ping', { message: 'hi' });
    expect(result).toMatchObject({ ok: false, error: { code: 'internal' } });
  });

  it('unwrapResult gives the value or throws a coded error', () => {
    expect(unwrapResult({ ok: true, value: 3 })).toBe(3);
    const call = () => unwrapResult({ ok: false, error: { code: 'too_large', message: 'big' } });
    expect(call).toThrow(IpcCallError);
    expect(call).toThrow('big');
  });
});
