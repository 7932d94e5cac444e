/**
 * `pincer serve --stdio` as another program drives it: the built CLI in a child process, one
 * JSON-RPC message per line on its stdin and stdout. Every behaviour comes from the served
 * manifest (test/fixtures/ckp/serve/level-3.yaml): its policy rules, approval timeouts, sandbox
 * network allowlist, provider limit, memory stores and swarm.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CkpPeer } from '../../support/ckp-peer.js';
import { builtCli, repoRoot } from '../../support/cli-run.js';

const fixture = (name: string) => path.join(repoRoot, 'test/fixtures/ckp/serve', name);

interface Served {
  child: ChildProcessWithoutNullStreams;
  peer: CkpPeer;
  home: string;
  stderr: () => string;
  exited: Promise<number | null>;
}

async function serve(manifest: string, ...flags: string[]): Promise<Served> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'pincer-ckp-'));
  const child = spawn(
    process.execPath,
    [builtCli, 'serve', '--stdio', '--manifest', fixture(manifest), ...flags],
    {
      env: { ...process.env, PINCER_HOME: home, PINCER_KEYCHAIN: 'off' },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const peer = new CkpPeer((frame) => child.stdin.write(`${frame}\n`));
  createInterface({ input: child.stdout }).on('line', (line) => peer.receive(line));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { child, peer, home, stderr: () => stderr, exited };
}

async function stop(served: Served): Promise<void> {
  served.child.stdin.end();
  await served.exited;
  await rm(served.home, { recursive: true, force: true });
}

describe('pincer serve --stdio (level 3)', () => {
  let served: Served;
  let peer: CkpPeer;
  beforeAll(async () => {
    served = await serve('level-3.yaml');
    peer = served.peer;
  });
  afterAll(async () => {
    await stop(served);
    // stdout carried protocol messages only, for the whole session.
    expect(served.peer.stray).toEqual([]);
  });

  it('answers nothing but claw.initialize before it, and refuses an unsupported version with -32001', async () => {
    const early = await peer.request('claw.status', {});
    expect(early.error).toMatchObject({ code: -32600, data: { method: 'claw.status' } });
    const tooOld = await peer.initialize({ protocolVersion: '0.1.0' });
    expect(tooOld.error).toEqual({
      code: -32001,
      message: 'Protocol version not supported',
      data: { supported: ['0.2.0', '0.3.0'] },
    });
    const otherMajor = await peer.initialize({ protocolVersion: '1.0.0' });
    expect(otherMajor.error?.code).toBe(-32001);
  });

  it('checks the operator manifest in claw.initialize for shape and protocol, never by name', async () => {
    const notClaw = await peer.request('claw.initialize', {
      protocolVersion: '0.2.0',
      clientInfo: { name: 'x', version: '1' },
      manifest: { kind: 'Skill', metadata: { name: 'served' } },
      capabilities: {},
    });
    expect(notClaw.error).toMatchObject({
      code: -32602,
      data: { served: { name: 'served', version: '3.1.0' } },
    });
    const unnamed = await peer.initialize({ manifest: { kind: 'Claw', metadata: {} } });
    expect(unnamed.error?.message).toContain('metadata.name');
    const otherMajor = await peer.initialize({
      manifest: { kind: 'Claw', claw: '1.0.0', metadata: { name: 'served' } },
    });
    expect(otherMajor.error?.message).toContain('1.0.0');
    const missing = await peer.request('claw.initialize', {
      protocolVersion: '0.2.0',
      clientInfo: { name: 'x', version: '1' },
      capabilities: {},
    });
    expect(missing.error?.code).toBe(-32602);
    expect(JSON.stringify(missing.error?.data)).toContain('manifest');
    // Every refusal left the agent where it was: nothing started.
    expect((await peer.request('claw.status', {})).error?.code).toBe(-32600);
  });

  it('initializes: the version negotiated down, the level and the capability intersection', async () => {
    // An operator manifest named unlike the served agent (the public harness sends test-agent).
    const answer = await peer.initialize(
      { protocolVersion: '0.3.1', capabilities: { tools: {}, memory: {}, telepathy: {} } },
      'test-agent',
    );
    expect(answer.result).toEqual({
      protocolVersion: '0.3.0',
      agentInfo: { name: 'served', version: '3.1.0' },
      conformanceLevel: 'level-3',
      capabilities: { tools: {}, memory: {} },
    });
    // An operator of 0.2.x gets 0.2.0: both versions are spoken.
    const older = await peer.initialize({ protocolVersion: '0.2.7' }, 'test-agent');
    expect(older.result).toMatchObject({ protocolVersion: '0.2.0' });
    peer.notify('claw.initialized');
    const status = await peer.request('claw.status', {});
    expect(status.result).toMatchObject({ state: 'READY' });
    expect(status.result?.uptime_ms).toBeTypeOf('number');
  });

  it('sends heartbeats at the manifest interval while READY', async () => {
    const seen = peer.notifications.length;
    await peer.until(
      () => peer.notifications.slice(seen).filter((n) => n.method === 'claw.heartbeat').length >= 2,
    );
    const beat = peer.notifications.slice(seen).find((n) => n.method === 'claw.heartbeat');
    expect(beat?.params).toMatchObject({ state: 'READY', uptime_ms: expect.any(Number) });
    expect(Date.parse(String(beat?.params?.timestamp))).not.toBeNaN();
  });

  it('handles malformed JSON, non-objects, bad structure, batches and notifications per JSON-RPC', async () => {
    expect((await peer.raw('{"jsonrpc": "2.0", "id": 1, ', null)).error?.code).toBe(-32700);
    expect((await peer.raw('42', null)).error?.code).toBe(-32600);
    expect((await peer.raw('[]', null)).error?.code).toBe(-32600);
    const noVersion = await peer.raw('{"id":"nv","method":"claw.status"}', 'nv');
    expect(noVersion.error?.code).toBe(-32600);
    const badParams = await peer.raw(
      '{"jsonrpc":"2.0","id":"bp","method":"claw.status","params":"x"}',
      'bp',
    );
    expect(badParams.error?.code).toBe(-32600);
    // A batch: two requests, a notification (no answer) and a non-object member.
    const batch = await peer.batch([
      { jsonrpc: '2.0', id: 'b1', method: 'claw.status', params: {} },
      { jsonrpc: '2.0', method: 'claw.initialized' },
      { jsonrpc: '2.0', id: 'b2', method: 'claw.nope' },
      7,
    ]);
    expect(batch).toHaveLength(3);
    expect(batch).toContainEqual(
      expect.objectContaining({ id: 'b1', result: expect.objectContaining({ state: 'READY' }) }),
    );
    expect(batch).toContainEqual(
      expect.objectContaining({ id: 'b2', error: expect.objectContaining({ code: -32601 }) }),
    );
    expect(batch).toContainEqual(
      expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32600 }) }),
    );
  });

  it('follows the direction and type rules of the method table', async () => {
    const heartbeat = await peer.request('claw.heartbeat', {});
    expect(heartbeat.error).toMatchObject({ code: -32601 });
    const initialized = await peer.request('claw.initialized', {});
    expect(initialized.error).toMatchObject({ code: -32600 });
    const wrong = await peer.request('claw.shutdown', { timeout_ms: 'soon' });
    expect(wrong.error).toMatchObject({ code: -32602 });
  });

  it('runs an allowed tool and returns MCP-style content', async () => {
    const listed = await peer.call('fs/list', { path: '.' }, 'list-1');
    expect(listed.result).toMatchObject({ content: [{ type: 'text' }], isError: false });
  });

  it('validates arguments against the input schema: -32602', async () => {
    const bad = await peer.call('fs/read', { path: 7 }, 'bad-args');
    expect(bad.error).toMatchObject({ code: -32602, data: { tool: 'fs/read' } });
    const unknown = await peer.call('no/such-tool', {}, 'unknown');
    expect(unknown.error).toMatchObject({ code: -32602, data: { tool: 'no/such-tool' } });
  });

  it('a destructive tool is denied by the policy rule: -32011 with the rule', async () => {
    const denied = await peer.call('wipe-disk', { device: '/dev/sda' }, 'wipe-1');
    expect(denied.error).toMatchObject({
      code: -32011,
      data: { rule_id: 'no-destruction', policy: 'rules', tool: 'wipe-disk', action: 'deny' },
    });
  });

  it('the sandbox network allowlist refuses a host it does not list: -32010', async () => {
    const blocked = await peer.call('net/fetch', { url: 'http://127.0.0.1:9/' }, 'fetch-1');
    expect(blocked.error).toMatchObject({ code: -32010, data: { tool: 'net/fetch' } });
  });

  it('an approval rule that times out gives -32012', async () => {
    const timedOut = await peer.call('sys/exec', { command: 'true' }, 'exec-1');
    expect(timedOut.error).toMatchObject({
      code: -32012,
      data: { rule_id: 'shell-quick-ok', action: 'ask' },
    });
  });

  it('claw.tool.approve resolves the pending call; an id that is not pending is not acknowledged', async () => {
    const early = await peer.request('claw.tool.approve', { request_id: 'write-1' });
    expect(early.result).toEqual({ acknowledged: false });
    const call = peer.call('fs/write', { path: 'note.md', content: 'hello' }, 'write-1');
    let approved: boolean | undefined;
    while (!approved) {
      const answer = await peer.request('claw.tool.approve', {
        request_id: 'write-1',
        reason: 'fine',
      });
      approved = answer.result?.acknowledged === true;
    }
    expect((await call).result).toMatchObject({ isError: false });
    const again = await peer.request('claw.tool.approve', { request_id: 'write-1' });
    expect(again.result).toEqual({ acknowledged: false });
    const written = await readFile(
      path.join(served.home, 'workspace', 'served', 'note.md'),
      'utf8',
    ).catch(() => undefined);
    // The workspace layout is the manifest's; the write happened where the tool said.
    if (written !== undefined) expect(written).toBe('hello');
  });

  it('claw.tool.deny refuses the pending call with -32013', async () => {
    const call = peer.call('fs/write', { path: 'no.md', content: 'x' }, 'write-2');
    let denied: boolean | undefined;
    while (!denied) {
      const answer = await peer.request('claw.tool.deny', { request_id: 'write-2' });
      denied = answer.result?.acknowledged === true;
    }
    expect((await call).error).toMatchObject({ code: -32013, data: { tool: 'fs/write' } });
  });

  it('idempotency is per method and request id: a repeat is answered, not run again', async () => {
    const first = peer.call('fs/write', { path: 'once.md', content: 'one' }, 'idem-1');
    const repeat = peer.call('fs/write', { path: 'once.md', content: 'one' }, 'idem-1');
    let acknowledged = 0;
    while (acknowledged === 0) {
      const answer = await peer.request('claw.tool.approve', { request_id: 'idem-1' });
      if (answer.result?.acknowledged) acknowledged++;
    }
    const [a, b] = await Promise.all([first, repeat]);
    expect(a.result).toEqual(b.result);
    // One run, so one approval: nothing else is pending for that id.
    const more = await peer.request('claw.tool.approve', { request_id: 'idem-1' });
    expect(more.result).toEqual({ acknowledged: false });
    const reused = await peer.call('fs/write', { path: 'other.md', content: 'two' }, 'idem-1');
    expect(reused.error).toMatchObject({ code: -32602, data: { request_id: 'idem-1' } });
    // The same request id on another method is another request.
    const stored = await peer.request('claw.memory.store', {
      store: 'facts',
      entries: [{ key: 'colour', content: 'teal' }],
      context: { request_id: 'idem-1' },
    });
    expect(stored.result).toEqual({ stored: 1, ids: ['colour'] });
  });

  it('memory: store, query by key, semantic and time range, compact by the store retention', async () => {
    for (const [index, text] of [
      'alpha quarterly revenue',
      'beta roadmap',
      'gamma hiring',
    ].entries()) {
      const stored = await peer.request('claw.memory.store', {
        store: 'notes',
        entries: [{ key: `n${index}`, content: text, metadata: { source: 'test' } }],
        context: { request_id: `mem-${index}` },
      });
      expect(stored.result).toEqual({ stored: 1, ids: [`note:n${index}`] });
    }
    const byKey = await peer.request('claw.memory.query', {
      store: 'notes',
      query: { type: 'key', key: 'n1' },
    });
    expect(byKey.result?.entries).toEqual([
      expect.objectContaining({ id: 'note:n1', content: 'beta roadmap' }),
    ]);
    const semantic = await peer.request('claw.memory.query', {
      store: 'notes',
      query: { type: 'semantic', text: 'revenue', top_k: 5 },
    });
    expect(semantic.result?.entries).toEqual([
      expect.objectContaining({ id: 'note:n0', content: 'alpha quarterly revenue' }),
    ]);
    const range = await peer.request('claw.memory.query', {
      store: 'notes',
      query: {
        type: 'time-range',
        time_range: { from: '2000-01-01T00:00:00Z', to: '2999-01-01T00:00:00Z' },
      },
    });
    expect(range.result?.entries).toHaveLength(3);
    const fact = await peer.request('claw.memory.query', {
      store: 'facts',
      query: { type: 'key', key: 'colour' },
    });
    expect(fact.result?.entries).toEqual([
      expect.objectContaining({ id: 'colour', content: 'teal' }),
    ]);
    const compacted = await peer.request('claw.memory.compact', { store: 'notes' });
    expect(compacted.result).toEqual({ entries_before: 3, entries_after: 2 });
    const unknown = await peer.request('claw.memory.query', {
      store: 'nowhere',
      query: { type: 'key', key: 'x' },
    });
    expect(unknown.error).toMatchObject({ code: -32602, data: { available: ['notes', 'facts'] } });
  });

  it('swarm: discover, delegate with the report sent back, a provider over its declared limit gives -32021', async () => {
    const found = await peer.request('claw.swarm.discover', {});
    expect(found.result).toEqual({
      peers: [
        { identity: 'served', uri: 'claw://local/identity/served', status: 'ready' },
        { identity: 'helper', uri: 'claw://local/identity/helper', status: 'unavailable' },
      ],
    });
    expect((await peer.request('claw.swarm.discover', { swarm: 'other' })).result).toEqual({
      peers: [],
    });
    const delegated = await peer.request('claw.swarm.delegate', {
      task_id: 'task-1',
      task: { description: 'Summarise the notes', input: { top: 3 } },
      context: { request_id: 'dlg-1', swarm: 'crew' },
    });
    expect(delegated.result).toEqual({ acknowledged: true });
    await peer.until(() => peer.requests.some((r) => r.method === 'claw.swarm.report'));
    const report = peer.requests.find((r) => r.method === 'claw.swarm.report');
    expect(report?.params).toMatchObject({
      task_id: 'task-1',
      status: 'failed',
      result: { error: { code: -32021 } },
    });
    peer.notify('claw.swarm.broadcast', { swarm: 'crew', message: { type: 'hello' } });
    const unknownReport = await peer.request('claw.swarm.report', {
      task_id: 'never-delegated',
      status: 'completed',
      result: {},
    });
    expect(unknownReport.result).toEqual({ acknowledged: false });
    const wrongSwarm = await peer.request('claw.swarm.delegate', {
      task_id: 'task-2',
      task: { description: 'x' },
      context: { request_id: 'dlg-2', swarm: 'nobody' },
    });
    expect(wrongSwarm.error?.code).toBe(-32602);
  });

  it('claw.shutdown drains with its timeout, stops heartbeats, and the agent can be initialized again', async () => {
    // A write waits 60 s for approval under the manifest: it cannot finish within the drain.
    const pending = peer.call('fs/write', { path: 'late.md', content: 'x' }, 'late-1');
    const shutdown = await peer.request('claw.shutdown', {
      reason: 'test',
      timeout_ms: 100,
    });
    expect(shutdown.result).toEqual({ drained: false });
    expect((await pending).error).toBeDefined();
    expect((await peer.request('claw.status', {})).result).toMatchObject({ state: 'STOPPED' });
    const beats = peer.notifications.length;
    const afterStop = await peer.request('claw.tool.call', {});
    expect(afterStop.error?.code).toBe(-32600);
    expect(peer.notifications.slice(beats).filter((n) => n.method === 'claw.heartbeat')).toEqual(
      [],
    );
    // A conformance harness re-initializes under its own bootstrap name: the operator's name
    // differs from the served agent's, and the served manifest stays the agent.
    const again = await peer.initialize({}, 'ckp-bootstrap');
    expect(again.result).toMatchObject({
      conformanceLevel: 'level-3',
      agentInfo: { name: 'served', version: '3.1.0' },
    });
    expect((await peer.request('claw.status', {})).result).toMatchObject({ state: 'READY' });
    const read = await peer.call('fs/list', { path: '.' }, 'after-reinit-1');
    expect(read.result).toMatchObject({ isError: false });
    const idle = await peer.request('claw.shutdown', {});
    expect(idle.result).toEqual({ drained: true });
  });
});

describe('pincer serve --stdio (level 1)', () => {
  it('answers methods beyond the declared level with -32601', async () => {
    const served = await serve('level-1.yaml', '--heartbeat', '60000');
    try {
      const init = await served.peer.initialize({}, 'chatty');
      expect(init.result).toMatchObject({ conformanceLevel: 'level-1', capabilities: {} });
      const call = await served.peer.call('fs/list', {}, 'r');
      expect(call.error).toMatchObject({
        code: -32601,
        data: { conformanceLevel: 'level-1', requires: 'level-2' },
      });
      const memory = await served.peer.request('claw.memory.compact', { store: 'x' });
      expect(memory.error?.code).toBe(-32601);
    } finally {
      await stop(served);
    }
    expect(served.peer.stray).toEqual([]);
  });
});
