/**
 * An agent from the root with channels declared in its manifest (the shipped default plus the
 * channels a test gives), answering with a scripted model, in a temp data dir.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Agent, openAgent } from '../../src/main/core/agent/index.js';
import type { Clock } from '../../src/main/core/channels/clock.js';
import { ChannelHub } from '../../src/main/core/channels/hub.js';
import type { ChannelDecl } from '../../src/main/core/channels/types.js';
import { viaProvider } from '../../src/main/core/models/access.js';
import type { ModelRequest } from '../../src/main/core/models/types.js';
import { APP_DIR } from './assistant-harness.js';
import { shippedClaw, writeDocument, type YamlDocument } from './manifest.js';
import { type Script, ScriptedProvider } from './scripted-provider.js';
import { vaultSecrets } from './secrets.js';

export interface ChannelAgent {
  agent: Agent;
  hub: ChannelHub;
  provider: ScriptedProvider;
  dataDir: string;
  manifest: string;
  decl(name: string): ChannelDecl;
  close(): Promise<void>;
}

export function lastUserText(request: ModelRequest): string {
  const last = request.messages.at(-1);
  const text = last?.content.find((b) => b.type === 'text');
  return text?.type === 'text' ? text.text : '';
}

/**
 * "write ..." asks for fs/write (the shipped policy asks a person), a tool result is reported
 * back, "long" gets about 8000 characters, anything else is echoed: "echo: <text>".
 */
export const channelScript: Script = (request) => {
  const result = request.messages.at(-1)?.content.find((b) => b.type === 'tool_result');
  if (result?.type === 'tool_result') {
    return { text: result.isError ? `not written: ${String(result.content)}` : 'written' };
  }
  const text = lastUserText(request);
  if (text.startsWith('write')) {
    return {
      text: 'Writing.',
      toolCalls: [{ name: 'fs/write', input: { path: 'notes/from-channel.txt', content: text } }],
    };
  }
  if (text === 'long') {
    return {
      text: Array.from({ length: 300 }, (_, i) => `Line ${i} of a long answer.`).join('\n'),
    };
  }
  return { text: `echo: ${text}` };
};

/** A manifest: the shipped default, its channels replaced by `channels`, then `edit`. */
export async function writeManifest(
  dir: string,
  channels: unknown[],
  edit?: (doc: YamlDocument) => void,
): Promise<string> {
  const doc = await shippedClaw();
  doc.setIn(
    ['spec', 'channels'],
    channels.map((inline) => ({ inline })),
  );
  edit?.(doc);
  return writeDocument(dir, doc);
}

/** Sets the approval timeout of the shipped rules that ask (by default: for file writes). */
export function approvalTimeout(
  seconds: number,
  defaultIfTimeout: 'deny' | 'allow' = 'deny',
  ids: readonly string[] = ['approve-filesystem-writes'],
) {
  return (doc: YamlDocument) => {
    const rules = doc.getIn(['spec', 'policies', 0, 'inline', 'rules']) as {
      items: Array<{ get(key: string): unknown; set(key: string, value: unknown): void }>;
    };
    for (const rule of rules.items) {
      if (ids.includes(rule.get('id') as string))
        rule.set('approval', { timeout_seconds: seconds, default_if_timeout: defaultIfTimeout });
    }
  };
}

export async function channelAgent(options: {
  channels: unknown[];
  script?: Script;
  edit?: (doc: YamlDocument) => void;
  clock?: Clock;
  dataDir?: string;
  /** The agent's tool allow list (default: the surfaces' default). */
  tools?: string;
}): Promise<ChannelAgent> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'pincer-channels-')));
  const manifest = await writeManifest(dataDir, options.channels, options.edit);
  const provider = new ScriptedProvider(options.script ?? channelScript);
  const agent = await openAgent({
    dataDir,
    appDir: APP_DIR,
    manifest,
    model: { kind: 'fixed', access: viaProvider(provider, 'scripted'), label: 'scripted' },
    ...(options.tools !== undefined ? { tools: options.tools } : {}),
    secrets: vaultSecrets(dataDir, 'test-passphrase'),
  });
  const hub = new ChannelHub(agent);
  return {
    agent,
    hub,
    provider,
    dataDir,
    manifest,
    decl(name) {
      const found = agent.claw.channels.find((channel) => channel.name === name);
      if (!found) throw new Error(`no channel ${name} in the test manifest`);
      return found;
    },
    async close() {
      await agent.close();
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A clock the test moves: `advance` fires timers on time, `sleep` jumps and fires them late. */
export class ManualClock implements Clock {
  private timers: Array<{ at: number; fire: () => void; id: number }> = [];
  private serial = 0;

  constructor(public time: number) {}

  now(): number {
    return this.time;
  }

  setTimer(ms: number, fire: () => void): () => void {
    const id = this.serial++;
    this.timers.push({ at: this.time + ms, fire, id });
    return () => {
      this.timers = this.timers.filter((timer) => timer.id !== id);
    };
  }

  /** Moves time forward, firing each timer at its own time. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const next = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.timers = this.timers.filter((timer) => timer !== next);
      this.time = Math.max(this.time, next.at);
      next.fire();
    }
    this.time = end;
  }

  /** The machine slept: time jumps, then the overdue timers fire (late). */
  sleep(ms: number): void {
    this.time += ms;
    this.advance(0);
  }
}
