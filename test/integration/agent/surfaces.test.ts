/**
 * One agent, four surfaces: the same scripted conversation through `pincer run`, `pincer chat`,
 * `pincer gateway` (over its WebSocket) and the assistant API, each against the same
 * OpenAI-compatible server on 127.0.0.1 with the shipped manifest, makes the same model requests:
 * the same system text, the same tools, the same tool format. Each surface gets a fresh home,
 * so nothing remembered by one reaches another; the home's path is the only thing normalised.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createAssistant } from '../../../src/main/core/assistant/index.js';
import { createSecretStore } from '../../../src/main/core/secrets/index.js';
import { startVendorServer, type VendorServer } from '../../fixtures/vendor-server.js';
import { openaiFrames } from '../../fixtures/vendor-streams.js';
import { APP_DIR } from '../../support/assistant-harness.js';
import { builtCli, runBuiltCli } from '../../support/cli-run.js';
import { FAST_SCRYPT } from '../../support/secrets.js';

const ASK = 'What is in my notes folder?';
const homes: string[] = [];
let server: VendorServer;
beforeAll(async () => {
  server = await startVendorServer();
});
afterAll(async () => {
  await server.close();
  for (const home of homes) await rm(home, { recursive: true, force: true });
});

const freshHome = async () => {
  const home = await mkdtemp(path.join(os.tmpdir(), 'pincer-surface-'));
  homes.push(home);
  return home;
};
const env = (home: string) => ({ ...process.env, PINCER_HOME: home, PINCER_KEYCHAIN: 'off' });
const MODEL_FLAGS = ['--protocol', 'openai', '--model', 'm'];

type ToolFormat = 'native' | 'text';

/**
 * Scripts one conversation and returns the requests it made: natively a tool call, then an
 * answer; in the text format (no `tools` field, the tools described in the system text) one answer.
 */
async function conversation(home: string, format: ToolFormat, drive: () => Promise<void>) {
  const before = server.requests.length;
  const answer = { kind: 'sse', frames: openaiFrames({ text: ['Nothing there yet.'] }) } as const;
  if (format === 'native')
    server.reply(
      {
        kind: 'sse',
        frames: openaiFrames({
          tools: [{ id: 'call_1', name: 'fs__list', args: ['{"path":"."}'] }],
        }),
      },
      answer,
    );
  else server.reply(answer);
  await drive();
  const made = server.requests.slice(before);
  expect(made, 'each surface makes the same number of model calls').toHaveLength(
    format === 'native' ? 2 : 1,
  );
  return made.map((request) => {
    const body = JSON.parse(JSON.stringify(request.body).replaceAll(home, '<home>')) as {
      messages: Array<{ role: string; content: unknown }>;
      tools?: unknown;
      tool_choice?: unknown;
    };
    return {
      system: body.messages.filter((m) => m.role === 'system').map((m) => m.content),
      tools: body.tools,
      toolFormat: body.tools ? 'native' : 'text',
      roles: body.messages.map((m) => m.role),
    };
  });
}

const flagsFor = (format: ToolFormat) => [...MODEL_FLAGS, '--tool-format', format];

async function viaRun(format: ToolFormat) {
  const home = await freshHome();
  return conversation(home, format, async () => {
    const result = await runBuiltCli(['run', ...flagsFor(format), '--endpoint', server.url, ASK], {
      env: env(home),
      timeoutMs: 60_000,
    });
    expect(result.code, result.stderr).toBe(0);
  });
}

async function viaChat(format: ToolFormat) {
  const home = await freshHome();
  return conversation(home, format, async () => {
    const result = await runBuiltCli(['chat', ...flagsFor(format), '--endpoint', server.url], {
      env: env(home),
      input: `${ASK}\n/exit\n`,
      timeoutMs: 60_000,
    });
    expect(result.code, result.stderr).toBe(0);
  });
}

async function viaGateway(format: ToolFormat) {
  const home = await freshHome();
  return conversation(home, format, async () => {
    const child: ChildProcess = spawn(
      process.execPath,
      [builtCli, 'gateway', ...flagsFor(format), '--endpoint', server.url, '--port', '0'],
      { env: env(home), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      const openUrl = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
          out += chunk;
          const match = /Open: (\S+)/.exec(out);
          if (match?.[1]) resolve(match[1]);
        });
        child.on('exit', (code) => reject(new Error(`gateway exited with ${code}`)));
      });
      const url = new URL(openUrl);
      const token = url.hash.replace('#token=', '');
      const ws = new WebSocket(`ws://${url.host}/ipc`);
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      const finished = new Promise<void>((resolve) =>
        ws.on('message', (data) => {
          const frame = JSON.parse(data.toString()) as {
            event?: { topic: string; event?: { type: string } };
          };
          if (frame.event?.topic === 'run' && frame.event.event?.type === 'run.finished') resolve();
        }),
      );
      ws.send(JSON.stringify({ type: 'hello', token }));
      ws.send(
        JSON.stringify({ type: 'call', id: 1, channel: 'chat.send', request: { text: ASK } }),
      );
      await finished;
      ws.close();
    } finally {
      child.kill('SIGTERM');
    }
  });
}

async function viaAssistantApi(format: ToolFormat) {
  const home = await freshHome();
  return conversation(home, format, async () => {
    const assistant = await createAssistant({
      dataDir: home,
      appDir: APP_DIR,
      model: {
        kind: 'server',
        protocol: 'openai-compatible',
        endpoint: server.url,
        model: 'm',
        toolFormat: format,
      },
      secrets: createSecretStore({
        dataDir: home,
        env: { PINCER_KEYCHAIN: 'off' },
        scrypt: FAST_SCRYPT,
      }),
    });
    try {
      const { runId } = assistant.send({ text: ASK });
      await assistant.finished(runId);
    } finally {
      await assistant.close();
    }
  });
}

it('pincer run, pincer chat, the gateway and the assistant API ask the model the same', async () => {
  const run = await viaRun('native');
  expect(run[0]?.system.join('')).not.toBe('');
  expect(run[0]?.tools).toBeDefined();
  expect(run[0]?.roles).toEqual(['system', 'user']);
  expect(run[1]?.roles).toEqual(['system', 'user', 'assistant', 'tool']);
  expect(await viaChat('native')).toEqual(run);
  expect(await viaGateway('native')).toEqual(run);
  expect(await viaAssistantApi('native')).toEqual(run);
}, 240_000);

it('--tool-format text is honoured the same by all four: no tools field, the tools in the system text', async () => {
  const run = await viaRun('text');
  expect(run[0]?.toolFormat).toBe('text');
  expect(run[0]?.system.join('')).toContain('fs/list');
  expect(await viaChat('text')).toEqual(run);
  expect(await viaGateway('text')).toEqual(run);
  expect(await viaAssistantApi('text')).toEqual(run);
}, 240_000);
