import { describe, expect, it } from 'vitest';
import { FairGate, type TurnSource } from '../../../src/main/core/local/fair-gate.js';

/** A turn that runs until the test lets it finish, recording when it started. */
function turns(gate: FairGate, started: string[]) {
  const release = new Map<string, () => void>();
  const start = (source: TurnSource, name: string, signal?: AbortSignal) =>
    gate.run(source, signal, async () => {
      started.push(name);
      await new Promise<void>((resolve) => release.set(name, resolve));
      return name;
    });
  const finish = async (name: string) => {
    await expect.poll(() => release.has(name)).toBe(true);
    release.get(name)?.();
  };
  return { start, finish };
}

describe('FairGate', () => {
  it('alternates between the app and external clients when both wait', async () => {
    const gate = new FairGate();
    gate.setLimit(1);
    const started: string[] = [];
    const { start, finish } = turns(gate, started);
    // A burst of external requests arrives first, then the app's turns.
    const all = [
      start('external', 'e1'),
      start('external', 'e2'),
      start('external', 'e3'),
      start('external', 'e4'),
      start('app', 'a1'),
      start('app', 'a2'),
    ];
    expect(gate.stats()).toEqual({
      running: { app: 0, external: 1 },
      waiting: { app: 2, external: 3 },
    });
    for (const name of ['e1', 'a1', 'e2', 'a2', 'e3', 'e4']) await finish(name);
    await Promise.all(all);
    expect(started).toEqual(['e1', 'a1', 'e2', 'a2', 'e3', 'e4']);
    expect(gate.stats()).toEqual({
      running: { app: 0, external: 0 },
      waiting: { app: 0, external: 0 },
    });
  });

  it('lets every turn through at once with no limit (the endpoint off)', async () => {
    const gate = new FairGate();
    const started: string[] = [];
    const { start, finish } = turns(gate, started);
    const all = [start('app', 'a1'), start('app', 'a2'), start('external', 'e1')];
    await expect.poll(() => started.length).toBe(3);
    for (const name of ['a1', 'a2', 'e1']) await finish(name);
    expect(await Promise.all(all)).toEqual(['a1', 'a2', 'e1']);
  });

  it('drops a waiter whose request is cancelled before it costs anything', async () => {
    const gate = new FairGate();
    gate.setLimit(1);
    const started: string[] = [];
    const { start, finish } = turns(gate, started);
    const first = start('app', 'a1');
    const leaving = new AbortController();
    const gone = start('external', 'e1', leaving.signal);
    const after = start('external', 'e2');
    leaving.abort(new Error('client left'));
    await expect(gone).rejects.toThrow('client left');
    expect(gate.stats().waiting.external).toBe(1);
    await finish('a1');
    await finish('e2');
    await Promise.all([first, after]);
    expect(started).toEqual(['a1', 'e2']);
  });
});
