/**
 * Every child process is hostile input: a seeded fuzz of what a child writes (every size, no
 * newline, binary, invalid UTF-8, huge single lines, garbage interleaved with real messages,
 * chunk boundaries anywhere) against the two host readers of child streams, the MCP stdio
 * transport and the tool workers' channel. Real child processes. The host never throws out of
 * a listener (vitest fails the file on an uncaught exception), messages on lines of their own
 * arrive intact and in order, a line past the bound cuts the child off with that reason, and
 * after every case the next call works. A failing seed replays with the same bytes.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfinedStdioTransport } from '../../../src/main/core/mcp/process-transport.js';
import { detectBackend } from '../../../src/main/core/sandbox/backend.js';
import type { ConfinedProcess } from '../../../src/main/core/sandbox/sandbox.js';
import { createSandbox, type Sandbox } from '../../../src/main/core/sandbox/sandbox.js';
import { sandboxSettings } from '../../../src/main/core/sandbox/settings.js';
import type { Tool, ToolOutput } from '../../../src/main/core/tools/types.js';
import { type Random, seededRandom } from '../../support/seeded-random.js';
import { hostileTools } from '../sandbox/fixtures/hostile-tools.js';

const BOUND = 64 * 1024;
const NEWLINE = 0x0a;

/** One piece of what a child writes, and whether it is a real message on a line of its own. */
interface Piece {
  bytes: Buffer;
  id?: number;
}

function piece(random: Random, id: number): Piece {
  const noNewline = (bytes: Buffer) => Buffer.from(bytes.map((b) => (b === NEWLINE ? 0x20 : b)));
  switch (random.int(9)) {
    case 0:
    case 1: {
      const message = {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { id, s: 'é\u2028' },
      };
      return { bytes: Buffer.from(`${JSON.stringify(message)}${random.int(2) ? '\r' : ''}\n`), id };
    }
    case 2:
      return { bytes: random.bytes(random.int(4096)) };
    case 3:
      // Invalid UTF-8: lone continuation bytes, overlongs, a cut multibyte sequence.
      return { bytes: Buffer.from([0xc0, 0xaf, 0x80, 0xff, 0xfe, 0xe2, 0x82, NEWLINE]) };
    case 4:
      return { bytes: noNewline(random.bytes(random.int(BOUND * 2))) };
    case 5:
      return { bytes: Buffer.alloc(BOUND + 1 + random.int(BOUND), 0x7b) };
    case 6:
      return { bytes: Buffer.from(`${'['.repeat(random.int(100_000))}\n`) };
    case 7:
      return {
        bytes: Buffer.from(
          random.pick(['{}\n', '\n', '\r\n', '{"jsonrpc":"2.0"}\n', 'null\n', '[1,2]\n']),
        ),
      };
    default:
      return {
        bytes: Buffer.from(
          `{"jsonrpc":"2.0","id":${id},"result":{"n":"${'x'.repeat(random.int(BOUND - 64))}"}}\n`,
        ),
        id,
      };
  }
}

/** What the host must deliver: the messages whose lines stand alone before any line past the bound. */
function expected(pieces: Piece[]): { ids: number[]; overflow: boolean } {
  const ids: number[] = [];
  let lineStart = true;
  let open = 0;
  for (const { bytes, id } of pieces) {
    if (id !== undefined && lineStart) ids.push(id);
    let at = 0;
    for (;;) {
      const end = bytes.indexOf(NEWLINE, at);
      const length = open + (end < 0 ? bytes.length : end) - at;
      if (length > BOUND) return { ids, overflow: true };
      if (end < 0) {
        open = length;
        break;
      }
      open = 0;
      at = end + 1;
    }
    lineStart = bytes.length > 0 ? bytes[bytes.length - 1] === NEWLINE : lineStart;
  }
  return { ids, overflow: false };
}

/** A real child that writes `file` to stdout in pieces of random sizes, then exits. */
function writer(file: string, seed: number): ConfinedProcess {
  const script = `const fs=require('fs');const b=fs.readFileSync(${JSON.stringify(file)});let s=${seed}>>>0,at=0;
while(at<b.length){s=(s*1103515245+12345)>>>0;const n=1+(s%70000);let o=0;const p=b.subarray(at,at+n);
while(o<p.length){try{o+=fs.writeSync(1,p,o)}catch(e){if(e.code!=='EAGAIN')process.exit(0)}}at+=n}`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'pipe'] });
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return {
    child,
    stop: async () => {
      child.kill('SIGKILL');
      await closed;
    },
  };
}

describe('the MCP stdio transport against fuzzed server output', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-stdout-fuzz-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  for (let seed = 1; seed <= 40; seed++) {
    it(`seed ${seed}`, async () => {
      const random = seededRandom(seed);
      const pieces = Array.from({ length: 1 + random.int(24) }, (_, i) => piece(random, i + 1));
      const file = path.join(dir, `${seed}.bin`);
      await writeFile(file, Buffer.concat(pieces.map((p) => p.bytes)));
      const want = expected(pieces);

      const transport = new ConfinedStdioTransport(writer(file, seed), BOUND);
      const got: number[] = [];
      let errors = 0;
      const closed = new Promise<void>((resolve) => {
        transport.onclose = resolve;
      });
      transport.onmessage = (message: JSONRPCMessage) => {
        const id =
          'id' in message
            ? message.id
            : (message as unknown as { params: { id: number } }).params.id;
        got.push(Number(id));
        // A listener that throws is contained too.
        if (got.length % 3 === 0) throw new Error('a listener fault');
      };
      transport.onerror = () => {
        errors++;
        if (errors % 2 === 0) throw new Error('an error listener fault');
      };
      await transport.start();
      await closed;
      if (want.overflow) {
        expect(transport.fault).toMatch(`longer than ${BOUND} bytes`);
        // Lines completed in the chunk that overflowed may be dropped with it: a prefix.
        expect(want.ids.slice(0, got.length)).toEqual(got);
      } else {
        expect(transport.fault).toBeUndefined();
        expect(got).toEqual(want.ids);
      }
      await expect(transport.send({ jsonrpc: '2.0', method: 'x' })).rejects.toThrow('not running');
    }, 30_000);
  }
});

describe('the tool workers channel against fuzzed bytes', () => {
  let workspace = '';
  let sandbox: Sandbox;
  const tool = (name: string): Tool => {
    const found = hostileTools.find((t) => t.name === name);
    if (!found) throw new Error(name);
    return { ...found, timeoutMs: 60_000 };
  };
  const run = (name: string, input: Record<string, unknown> = {}): Promise<ToolOutput> =>
    sandbox.executor.run(tool(name), input, {
      signal: new AbortController().signal,
      workspace,
      env: {},
    });

  beforeAll(async () => {
    workspace = await mkdtemp(path.join(os.tmpdir(), 'pincer-channel-fuzz-'));
    sandbox = await createSandbox({
      backend: await detectBackend({ forceProcess: true }),
      settings: sandboxSettings({ workspace }),
      pool: {
        size: 1,
        onlineSize: 0,
        modules: [path.join(import.meta.dirname, '..', 'sandbox', 'fixtures', 'hostile-tools.ts')],
      },
    });
  }, 60_000);
  afterAll(async () => {
    await sandbox?.close();
    await rm(workspace, { recursive: true, force: true });
  });

  for (let seed = 1; seed <= 12; seed++) {
    it(`seed ${seed}`, async () => {
      const random = seededRandom(1000 + seed);
      const pieces = Array.from({ length: 1 + random.int(6) }, (_, i) => piece(random, i + 1));
      const bytes = Buffer.concat(pieces.map((p) => p.bytes));
      const result = await run('hostile/spray', { bytes: bytes.toString('base64') });
      // Whatever it was, the call ends with a value: the worker's own reply, or the violation.
      expect(typeof result.content).toBe('string');
      if (result.isError) expect(result.content).toContain('broke the channel protocol');
      const after = await run('hostile/token');
      expect(after.isError, after.content).toBeFalsy();
      expect(after.content).toMatch(/^[0-9a-f-]{36}$/);
    }, 60_000);
  }
});
